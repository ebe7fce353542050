"""A deterministic replay of the demo campaign, written to a folder for ``diff -r``.

``scripts/replay OUT`` plays the scripted demo war (its clock is simulated and its campaign
secret fixed, so the story is the same on every run) in the working folder ``OUT/work`` and
writes what it produced:

- ``transcript.txt``: everything the demo printed (posts, replies, modmail, previews);
- ``activity/NNNN-kind.txt``: every post, comment and modmail message the sandbox received;
- ``exports/NNN.json``: ``maester export`` after each round of the bot;
- ``outbox.json``: every post, reply and private message the bot queued, with its text;
- ``journal.json``: every event of the journal (its summary, data and dice);
- ``images/NN.png``: every picture uploaded with a post.

Two commits that behave the same give byte-identical folders (``diff -r base/ new/``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Event, Outbox
from bot.demo import PUBLIC_HOOK, STARK_HOOK, Demo, play
from bot.services.queries import export_world
from bot.services.webhooks import fingerprint


class ReplayDemo(Demo):
    """The demo, exporting the world after every round of the bot."""

    def __init__(self, out: Path) -> None:
        work = out / "work"
        work.mkdir(parents=True)
        super().__init__(work, echo=lambda _text: None)
        self.out = out
        self.rounds = 0

    def bot_round(self) -> None:
        super().bot_round()
        self.rounds += 1
        with transaction(self.engine) as session:
            data = export_world(session, self.ctx)
        self._write_json(self.out / "exports" / f"{self.rounds:03d}.json", data)

    def save(self) -> None:
        """Write the transcript, the sandbox's activity, the outbox, journal and pictures."""
        transcript = self._steady("\n".join(self.report.transcript))
        (self.out / "transcript.txt").write_text(transcript + "\n", encoding="utf-8")
        for number, item in enumerate(self.sandbox.activity(), start=1):
            text = self._steady(f"kind: {item.kind}\nsubreddit: {item.subreddit}\n"
                                f"author: {item.author}\ntitle: {item.title}\n\n{item.body}\n")
            _write_text(self.out / "activity" / f"{number:04d}-{item.kind}.txt", text)
        for number, (_where, data) in enumerate(self.report.images, start=1):
            path = self.out / "images" / f"{number:02d}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        with transaction(self.engine) as session:
            outbox = [{"key": o.key, "kind": o.kind, "public": o.public, "target": o.target,
                       "claim": o.claim_id, "tick": o.tick, "title": o.title, "body": o.body,
                       "flair": o.flair, "status": o.status}
                      for o in session.exec(select(Outbox).order_by(col(Outbox.id)))]
            journal = [{"tick": e.tick, "kind": e.kind, "claim": e.claim_id,
                        "public": e.public, "actor": e.actor, "summary": e.summary,
                        "data": e.data_json, "dice": e.dice_json}
                       for e in session.exec(select(Event).order_by(col(Event.id)))]
        self._write_json(self.out / "outbox.json", outbox)
        self._write_json(self.out / "journal.json", journal)

    def _write_json(self, path: Path, data: Any) -> None:
        _write_text(path, self._steady(
            json.dumps(data, indent=1, sort_keys=True, default=str) + "\n"))

    def _hooks_steady(self, text: str) -> str:
        """The text without the webhook receiver's address, which differs between runs (its
        port), nor the fingerprints of the webhooks' addresses (the outbox's targets and
        keys, the journal's lines)."""
        for name, hook in (("public", PUBLIC_HOOK), ("stark", STARK_HOOK)):
            text = text.replace(fingerprint(self.hooks.url(*hook)), f"HOOK-{name}")
        prefix = self.hooks.prefix  # also as a reply quotes it, made inert (``&#58;``)
        return text.replace(prefix, "WEBHOOKS/").replace(prefix.replace(":", "&#58;", 1),
                                                         "WEBHOOKS/")


    def _steady(self, text: str) -> str:
        """The text without what differs between runs: the working folder, the sandbox's
        address, the webhook receiver's, and the random names it gives uploaded pictures."""
        text = text.replace(str(self.workdir), "WORK").replace(self.sandbox.url, "SANDBOX")
        text = self._hooks_steady(text)
        for number, (where, _data) in enumerate(self.report.images, start=1):
            text = text.replace(where.rsplit("/", 1)[-1], f"picture-{number}")
        return text


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def replay(out: Path) -> None:
    """Play the demo into ``out`` (emptied first) and write its products there."""
    if out.exists():
        shutil.rmtree(out)
    demo = ReplayDemo(out)
    demo.start()
    try:
        play(demo)
        demo.save()
    finally:
        demo.stop()
        shutil.rmtree(out / "work", ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: scripts/replay OUT_FOLDER", file=sys.stderr)
        return 2
    replay(Path(argv[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
