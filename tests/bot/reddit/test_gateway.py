"""The PRAW gateway against the sandbox: listings, shapes, and what each failure becomes."""

from __future__ import annotations

from typing import Any

import pytest

from bot import __version__
from bot.config import parse_settings
from bot.reddit.gateway import (
    AuthError,
    GatewayConfigError,
    PermanentError,
    PrawGateway,
    RateLimited,
    TransientError,
    praw_gateway,
    ratelimit_seconds,
    user_agent,
    user_agent_problem,
)
from bot.reddit.ratelimit import RequestBudget
from bot.sandbox import (
    BOT_PASSWORD,
    BOT_USERNAME,
    DEFAULT_CLIENT_ID,
    DEFAULT_CLIENT_SECRET,
    MODERATOR,
    SUBREDDIT,
    Fault,
    RedditSandbox,
    password_for,
)
from tests.bot.reddit.conftest import SLOW, TIMEOUT, settings_for


@pytest.fixture
def gateway(sandbox: RedditSandbox) -> PrawGateway:
    settings = settings_for(sandbox.url, "sqlite://")
    return praw_gateway(settings, budget=RequestBudget(100_000, max_wait=5), timeout=TIMEOUT)


def test_listing_pages_through_every_conversation_newest_first(
        sandbox: RedditSandbox, gateway: PrawGateway) -> None:
    """Past 100 conversations the next page is asked with ``after``; none is missed or
    repeated, and the newest comes first."""
    made = [sandbox.send_modmail("ned_stark", f"s{i}", "status", subreddit=SUBREDDIT)[0]
            for i in range(230)]
    listed = [c.id for c in gateway.conversations("all")]
    assert listed == list(reversed(made))
    assert sandbox.request_count(route="modmail.list") == 3


def test_a_page_is_fetched_only_when_needed(sandbox: RedditSandbox,
                                            gateway: PrawGateway) -> None:
    """Stopping after the first conversations costs one request, not the whole folder."""
    for i in range(150):
        sandbox.send_modmail("ned_stark", f"s{i}", "status", subreddit=SUBREDDIT)
    first = next(iter(gateway.conversations("all")))
    assert first.subject == "s149"
    assert sandbox.request_count(route="modmail.list") == 1


def test_a_summary_holds_only_its_newest_message(sandbox: RedditSandbox,
                                                 gateway: PrawGateway) -> None:
    """The listing's summary is complete for a new conversation only; the fetch has all
    messages, oldest first, with authors and moderator flags."""
    conversation, first = sandbox.send_modmail("ned_stark", "Orders", "status",
                                               subreddit=SUBREDDIT)
    second = sandbox.reply_modmail(conversation, "ned_stark", "muster 10 infantry")
    (summary,) = gateway.conversations("all")
    assert summary.num_messages == 2 and not summary.complete
    assert [m.id for m in summary.messages] == [second]
    full = gateway.conversation(conversation)
    assert full.complete and [m.id for m in full.messages] == [first, second]
    assert full.participant == "ned_stark" and full.subreddit == SUBREDDIT
    assert not full.messages[0].author_is_mod and full.messages[0].body == "status"
    sent = gateway.reply(conversation, "answer")
    assert sent.conversation is not None and sent.conversation.messages[-1].id == sent.reddit_id
    assert sent.conversation.messages[-1].author_is_mod
    assert sent.conversation.last_updated > full.last_updated


def test_flair_is_set_by_its_text(sandbox: RedditSandbox, gateway: PrawGateway) -> None:
    """Posts get the link flair whose text is configured; an unknown one is left off."""
    sandbox.add_link_flair(SUBREDDIT, "Battle", mod_only=True)
    with_flair = gateway.submit("[Battle] a", "x", "battle")
    without = gateway.submit("[Battle] b", "x", "No such flair")
    assert sandbox.post(with_flair.reddit_id).flair_text == "Battle"
    assert sandbox.post(without.reddit_id).flair_text is None


def test_things_are_read_from_the_api(sandbox: RedditSandbox, gateway: PrawGateway) -> None:
    """Posts and comments by fullname, with author, subreddit and text; unknown is None."""
    post = sandbox.submit_post("ned_stark", "[Orders] x", "muster 5 infantry",
                               subreddit=SUBREDDIT)
    comment = sandbox.add_comment("cersei_lannister", post, "a reply")
    thing = gateway.thing(f"t3_{post}")
    assert thing is not None and (thing.author, thing.body, thing.subreddit) == (
        "ned_stark", "muster 5 infantry", SUBREDDIT)
    reply = gateway.thing(f"t1_{comment}")
    assert reply is not None and (reply.author, reply.body) == ("cersei_lannister", "a reply")
    assert gateway.thing("t3_zzzzzz") is None


def _expect(exc: type[Exception], call: Any) -> Any:
    with pytest.raises(exc) as caught:
        call()
    return caught.value


def test_a_429_is_a_rate_limit_with_reddits_wait(sandbox: RedditSandbox,
                                                 gateway: PrawGateway) -> None:
    """HTTP 429: wait as long as x-ratelimit-reset says; nothing was done."""
    sandbox.add_fault(Fault.too_many_requests(reset_seconds=7), method="GET")
    error = _expect(RateLimited, lambda: list(gateway.conversations("all")))
    assert error.wait_seconds == 7


def test_ratelimit_is_a_rate_limit_with_its_wait(sandbox: RedditSandbox,
                                                 gateway: PrawGateway) -> None:
    """RATELIMIT "try again in 9 minutes": 540 s, and PRAW does not sleep through it."""
    sandbox.add_fault(Fault.ratelimit(9, "minutes"), method="POST", path="/api/submit")
    error = _expect(RateLimited, lambda: gateway.submit("t", "b"))
    assert error.wait_seconds == 540
    assert sandbox.posts(author=BOT_USERNAME) == []


@pytest.mark.parametrize("fault", [
    Fault.forbidden(),
    Fault.api_error("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr"),
])
def test_refusals_are_permanent(sandbox: RedditSandbox, gateway: PrawGateway,
                                fault: Fault) -> None:
    """403 and API errors other than RATELIMIT will not change on retry."""
    sandbox.add_fault(fault, method="POST", path="/api/submit")
    _expect(PermanentError, lambda: gateway.submit("t", "b"))


def test_an_unknown_conversation_is_permanent(gateway: PrawGateway) -> None:
    """404 for a conversation that does not exist."""
    _expect(PermanentError, lambda: gateway.conversation("zzzz"))


@pytest.mark.parametrize("fault", [
    Fault.server_error(503), Fault.stored_then_slow(SLOW), Fault.stored_then_error(504),
], ids=["503", "stored-then-slow", "stored-then-504"])
def test_a_failed_post_is_sent_once_and_reported_uncertain(
        sandbox: RedditSandbox, gateway: PrawGateway, fault: Fault) -> None:
    """prawcore would repeat a POST after a 5xx or a timeout (two posts when the first was
    stored); the gateway sends it once and reports that it may have been done."""
    sandbox.add_fault(fault, method="POST", path="/api/submit")
    error = _expect(TransientError, lambda: gateway.submit("t", "b"))
    assert error.uncertain
    assert sandbox.request_count(route="submit") == 1
    stored = fault.kind.value != "server_error"
    assert len(sandbox.posts(author=BOT_USERNAME)) == int(stored)


def test_a_get_is_still_retried_by_prawcore(sandbox: RedditSandbox, gateway: PrawGateway,
                                            fast_retries: list[float]) -> None:
    """Reads are safe to repeat: one 503 is absorbed by prawcore's retry."""
    sandbox.send_modmail("ned_stark", "s", "status", subreddit=SUBREDDIT)
    sandbox.add_fault(Fault.server_error(503), method="GET", path="/api/mod/conversations")
    assert len(list(gateway.conversations("all"))) == 1
    assert sandbox.request_count(route="modmail.list") == 2


def test_a_revoked_token_is_renewed_silently(sandbox: RedditSandbox,
                                             gateway: PrawGateway) -> None:
    """401 invalid_token: prawcore fetches a new token and the call succeeds."""
    sandbox.add_fault(Fault.invalid_token(), method="POST", path="/api/submit")
    assert gateway.submit("t", "b").reddit_id.startswith("t3_")
    assert sandbox.request_count(route="token") == 2


def test_bad_credentials_are_an_auth_error(sandbox: RedditSandbox) -> None:
    """A wrong password is not a transient failure: an operator must fix the config."""
    settings = settings_for(sandbox.url, "sqlite://").configured(reddit={"password": "wrong"})
    gateway = praw_gateway(settings, timeout=TIMEOUT)
    _expect(AuthError, lambda: list(gateway.conversations("all")))


def test_a_refresh_token_login_asks_who_the_bot_is(sandbox: RedditSandbox) -> None:
    """With a refresh token (no username configured) the bot's name comes from
    /api/v1/me, once."""
    token = sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID)
    settings = parse_settings({
        "campaign": {"subreddit": SUBREDDIT},
        "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET,
                   "refresh_token": token, "oauth_url": sandbox.url, "operator": "grand_maester",
                   "reddit_url": sandbox.url}})
    gateway = praw_gateway(settings, timeout=TIMEOUT)
    assert gateway.username == BOT_USERNAME == gateway.username
    assert sandbox.request_count(route="me") == 1


def test_the_user_agent_is_built_from_the_config(sandbox: RedditSandbox) -> None:
    """Reddit's format, naming the bot and the moderator who runs it; sent on every call."""
    settings = parse_settings({
        "campaign": {"subreddit": SUBREDDIT, "moderators": ["u/Grand_Maester"]},
        "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET,
                   "username": BOT_USERNAME, "password": BOT_PASSWORD,
                   "oauth_url": sandbox.url, "reddit_url": sandbox.url}})
    agent = user_agent(settings)
    assert agent == f"python:maester-campaign.{BOT_USERNAME}:v{__version__} " \
                    "(by /u/grand_maester)"
    assert user_agent_problem(agent) is None
    list(praw_gateway(settings, timeout=TIMEOUT).conversations("all"))
    assert {r.user_agent.split(" PRAW/")[0] for r in sandbox.requests()} == {agent}


@pytest.mark.parametrize(("agent", "problem"), [
    ("maester/0.1 (campaign bot)", "must read"),
    ("python:maester:v0.1 (tests)", "must read"),
    ("python-requests/2.31", "must read"),
    ("python:praw:v8.0.3 (by /u/someone)", "generic"),
    ("python:maester:v0.1 (by /u/username)", "generic"),
])
def test_a_generic_user_agent_is_refused(agent: str, problem: str) -> None:
    """Refused before anything is sent, naming the key and the expected form."""
    settings = parse_settings({"reddit": {"client_id": "x", "username": "bot",
                                          "password": "pw", "user_agent": agent}})
    with pytest.raises(GatewayConfigError, match=rf"reddit.user_agent: .*{problem}"):
        praw_gateway(settings)


def test_nobody_to_name_in_the_user_agent_is_refused() -> None:
    settings = parse_settings({"reddit": {"client_id": "x", "username": "bot",
                                          "password": "pw"}})
    with pytest.raises(GatewayConfigError, match=r"reddit\.operator"):
        praw_gateway(settings)


def test_a_second_process_reuses_the_token(sandbox: RedditSandbox, tmp_path: Any) -> None:
    """The access token is kept in the campaign's database: the next process (a cron
    round) uses it until it expires instead of logging in again; other credentials never
    see it."""
    from bot.db.engine import make_engine, transaction
    from bot.db.migrate import upgrade
    from bot.db.models import Campaign
    from bot.reddit.state import DatabaseTokenStore

    engine = make_engine(f"sqlite:///{tmp_path / 'tokens.db'}")
    upgrade(engine)
    with transaction(engine) as session:
        campaign = Campaign(name="t", subreddit=SUBREDDIT, secret="s", map_text="")
        session.add(campaign)
        session.flush()
        campaign_id = campaign.id
    assert campaign_id is not None
    store = DatabaseTokenStore(engine, campaign_id)
    settings = parse_settings({
        "campaign": {"subreddit": SUBREDDIT, "moderators": ["grand_maester"]},
        "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET,
                   "username": BOT_USERNAME, "password": BOT_PASSWORD,
                   "oauth_url": sandbox.url, "reddit_url": sandbox.url}})
    for _ in range(3):  # three processes, one after the other
        gateway = praw_gateway(settings, timeout=TIMEOUT, token_store=store)
        list(gateway.conversations("all"))
    assert sandbox.request_count(route="token") == 1
    other = parse_settings({**settings.model_dump(),
                            "reddit": {**settings.reddit.model_dump(), "username": MODERATOR,
                                       "password": password_for(MODERATOR)}})
    list(praw_gateway(other, timeout=TIMEOUT, token_store=store).conversations("all"))
    assert sandbox.request_count(route="token") == 2
    sandbox.revoke_tokens()  # a cached token Reddit no longer takes: PRAW logs in again
    gateway = praw_gateway(settings, timeout=TIMEOUT, token_store=store)
    assert list(gateway.conversations("all")) == []
    assert sandbox.request_count(route="token") == 3
    engine.dispose()


@pytest.mark.parametrize(("reddit", "key"), [
    ({}, "reddit.client_id"),
    ({"client_id": "x"}, "reddit.password"),
    ({"client_id": "x", "username": "bot"}, "reddit.password"),
])
def test_missing_credentials_name_the_key(reddit: dict[str, str], key: str) -> None:
    """Nothing is sent to Reddit; the error names the setting to fill in."""
    with pytest.raises(GatewayConfigError, match=key):
        praw_gateway(parse_settings({"reddit": reddit}))


def test_every_request_spends_the_budget(sandbox: RedditSandbox) -> None:
    """Each HTTP request, the token request included, takes one token; when the budget is
    spent the call fails as rate-limited before anything is sent."""
    budget = RequestBudget(60, burst=3, max_wait=0.5)
    gateway = praw_gateway(settings_for(sandbox.url, "sqlite://"), budget=budget,
                           timeout=TIMEOUT)
    list(gateway.conversations("all"))
    gateway.submit("t", "b")
    assert budget.taken == sandbox.request_count(include_token=True) == 3
    before = sandbox.request_count(include_token=True)
    _expect(RateLimited, lambda: gateway.submit("t2", "b"))
    assert sandbox.request_count(include_token=True) == before


@pytest.mark.parametrize(("message", "seconds"), [
    ("you are doing that too much. try again in 9 minutes.", 540),
    ("you are doing that too much. try again in 1 minute.", 60),
    ("you are doing that too much. try again in 30 seconds.", 30),
    ("you are doing that too much. try again in 500 milliseconds.", 1),
    ("Looks like you've been doing that a lot. Take a break for 2 hours", 7200),
    ("something else entirely", 60),
])
def test_ratelimit_waits_are_read_from_reddits_text(message: str, seconds: float) -> None:
    """The wait in a RATELIMIT message, at least a second; a minute when unreadable."""
    assert ratelimit_seconds(message) == seconds


def test_the_documented_scopes_are_enough_and_a_missing_one_is_named(
        bot: Any) -> None:
    """A permanent refresh token with exactly :data:`SCOPES` (no ``modposts``) does every
    call a round makes; one without ``modmail`` fails `maester check` naming the scope."""
    from bot.reddit.gateway import SCOPES
    from bot.reddit.preflight import run_checks

    assert "modposts" not in SCOPES
    bot.sandbox.add_link_flair(SUBREDDIT, "Battle")
    token = bot.sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID, scopes=SCOPES)
    reddit = bot.settings.reddit.model_copy(update={"password": "", "username": "",
                                                    "refresh_token": token})
    settings = bot.settings.model_copy(update={"reddit": reddit})
    bot.gateway = praw_gateway(settings, timeout=TIMEOUT)
    bot.send("ned_stark", "muster 100 infantry")
    bot.sandbox.seed_automod_forward("ned_stark", "[Orders] x", "status", subreddit=SUBREDDIT)
    bot.sandbox.seed_mention("ned_stark", BOT_USERNAME, body="u/maester_bot !help",
                             subreddit=SUBREDDIT)
    assert bot.poll().processed == 3
    assert bot.publish().delivered == 3
    bot.gateway.submit("[Battle] test", "body", flair="Battle")
    assert bot.gateway.recent_submissions()
    assert all(check.ok for check in run_checks(settings, bot.gateway))
    assert [r for r in bot.sandbox.requests() if r.status == 403] == []
    narrow = bot.sandbox.issue_refresh_token(
        BOT_USERNAME, DEFAULT_CLIENT_ID, scopes=[s for s in SCOPES if s != "modmail"])
    lacking = settings.model_copy(update={"reddit": reddit.model_copy(
        update={"refresh_token": narrow})})
    checks = {c.name: c for c in run_checks(lacking, praw_gateway(lacking, timeout=TIMEOUT))}
    assert not checks["scope modmail"].ok and "lacks it" in checks["scope modmail"].detail
    assert "permanent refresh token" in checks["scope modmail"].fix
    assert not checks["modmail"].ok


def test_a_wrong_app_secret_is_a_refused_login(sandbox: RedditSandbox) -> None:
    """The token endpoint's 401 (wrong client id or secret) is an AuthError (backed off),
    not a transient failure retried every round."""
    settings = parse_settings({
        "campaign": {"subreddit": SUBREDDIT, "moderators": ["grand_maester"]},
        "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": "wrong",
                   "username": BOT_USERNAME, "password": BOT_PASSWORD,
                   "oauth_url": sandbox.url, "reddit_url": sandbox.url}})
    with pytest.raises(AuthError, match="client_secret"):
        praw_gateway(settings, timeout=TIMEOUT).me()
