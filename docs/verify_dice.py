#!/usr/bin/env python3
"""Check maester's dice yourself. Needs only Python 3 (no packages).

1. Copy the post (or just its `dice: v1 ...` lines) into a file, e.g. post.txt. Add the text of
   the [Dice] post that revealed the key: it lists every public event of the period with all
   its rolls, so a post that leaves a roll out no longer agrees with it.
2. Take the revealed secret of that period and branch from the reveal post (public rolls) or
   from your claim's dispatch (your private rolls).
3. Run:  python3 verify_dice.py --secret HEX [--commitment HEX] [--period N --branch B] < post.txt

It prints OK for every dice line that the secret reproduces and names every roll that it does
not. A key belongs to one period and one branch: lines of another are skipped when you name
yours with --period and --branch, and refused when you do not. With --commitment it also
checks that the secret is the one committed to before the period.
This file re-implements the derivation on purpose, from docs/dice.md alone, independently of
the bot's own code: read it, it is short.
"""

import argparse
import hashlib
import hmac
import re
import sys

MAX_SIDES = 2**32 - 1  # a die drawn from 32-bit words; with 2**32 sides every word is thrown away
FIELDS = ("period", "branch", "key", "orders", "rolls")


def dice_stream(secret: bytes, key: str, orders: str):
    """Yield 32-bit words: SHA-256(seed || counter), seed = HMAC(secret, 'key|orders')."""
    seed = hmac.new(secret, f"{key}|{orders}".encode(), hashlib.sha256).digest()
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")


def roll(words, sides: int) -> int:
    """One die with `sides` faces: reject words in the uneven top slice, then word % sides + 1."""
    limit = 2**32 - (2**32 % sides)
    for word in words:
        if word < limit:
            return word % sides + 1
    raise AssertionError("unreachable: the stream is endless")


def whole(text: str) -> int:
    if not re.fullmatch(r"[0-9]{1,12}", text):
        raise ValueError(f"{text[:20]!r} is not a whole number")
    return int(text)


def parse_line(line: str) -> dict:
    """The fields of one `dice: v1 ...` line; ValueError saying what is wrong with it."""
    pairs = [w.split("=", 1) for w in line.split()[2:] if "=" in w]
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise ValueError("a field is given twice")
    missing = [f for f in FIELDS if f not in fields]
    if missing:
        raise ValueError(f"no {', '.join(missing)}= (a dice line has {', '.join(FIELDS)})")
    rolls = []
    if fields["rolls"] != "-":
        for item in fields["rolls"].split(","):
            sides_text, _, value_text = item.partition(":")
            sides, value = whole(sides_text), whole(value_text)
            if not 1 <= sides <= MAX_SIDES:
                raise ValueError(f"a d{sides} is no die (1 to {MAX_SIDES} sides)")
            if not 1 <= value <= sides:
                raise ValueError(f"a d{sides} cannot show {value}")
            rolls.append((sides, value))
    return {"period": whole(fields["period"]), "branch": fields["branch"], "key": fields["key"],
            "orders": "" if fields["orders"] == "-" else fields["orders"],
            "rolls": tuple(rolls)}


def check_line(fields: dict, secret: bytes) -> list[str]:
    """Compare one dice line's rolls with what the secret gives; return the differences."""
    words = dice_stream(secret, fields["key"], fields["orders"])
    problems = []
    for number, (sides, value) in enumerate(fields["rolls"], start=1):
        fair = roll(words, sides)
        if fair != value:
            problems.append(f"roll {number} (d{sides}): printed {value}, the secret gives {fair}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", "--key", required=True,
                        help="the revealed dice key of the period and branch (64 hex digits)")
    parser.add_argument("--commitment", help="the commitment published before the period (hex)")
    parser.add_argument("--period", type=int, help="the period the key is for")
    parser.add_argument("--branch", help="the branch the key is for (public, claim:N)")
    args = parser.parse_args()
    if not re.fullmatch(r"[0-9a-fA-F]{64}", args.secret.strip()):
        parser.error("--secret must be the 64 hexadecimal digits of a revealed dice key")
    secret = bytes.fromhex(args.secret.strip())
    failed = False
    if args.commitment:
        if hashlib.sha256(secret).hexdigest() != args.commitment.strip().lower():
            print("COMMITMENT MISMATCH: this secret is not the one committed to")
            failed = True
        else:
            print("commitment OK")
    lines = []
    for raw in sys.stdin:
        if "dice: v1" not in raw:
            continue
        line = raw[raw.index("dice: v1"):].split("`")[0].strip()
        try:
            lines.append(parse_line(line))
        except ValueError as exc:
            print(f"BAD  {line[:80]}\n     not a complete dice line: {exc}")
            failed = True
    if not lines:
        print("no complete 'dice: v1' line found in the input")
        return 2
    keys = sorted({(f["period"], f["branch"]) for f in lines})
    if args.period is None and args.branch is None and len(keys) > 1:
        print("these lines come from " + "; ".join(f"period {p} branch {b}" for p, b in keys)
              + ". A key checks one period and branch: say which with --period and --branch")
        return 2
    printed: dict = {}
    for fields in lines:
        name = f"{fields['key']} (period {fields['period']}, branch {fields['branch']})"
        if ((args.period is not None and fields["period"] != args.period)
                or (args.branch is not None and fields["branch"] != args.branch)):
            print(f"SKIP {name}: another period or branch than this key's")
            continue
        problems = check_line(fields, secret)
        event = (fields["period"], fields["branch"], fields["key"], fields["orders"])
        before = printed.setdefault(event, fields["rolls"])
        if before != fields["rolls"]:
            problems.append(f"printed with {len(before)} roll(s) in one place and "
                            f"{len(fields['rolls'])} in another: one leaves rolls out or "
                            "changes them")
        print(f"{'OK  ' if not problems else 'FAIL'} {name}, {len(fields['rolls'])} roll(s)")
        for problem in problems:
            print(f"     {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
