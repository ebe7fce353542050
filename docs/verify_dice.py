#!/usr/bin/env python3
"""Check maester's dice yourself. Needs only Python 3 (no packages).

1. Copy the post (or just its `dice: v1 ...` lines) into a file, e.g. post.txt.
2. Take the revealed secret of that period and branch from the reveal post (public rolls) or
   from your claim's dispatch (your private rolls).
3. Run:  python3 verify_dice.py --secret HEX [--commitment HEX] < post.txt

It prints OK for every dice line that the secret reproduces and names every roll that it does
not. With --commitment it also checks that the secret is the one committed to before the period.
This file re-implements the derivation on purpose, from docs/dice.md alone, independently of
the bot's own code: read it, it is short.
"""

import argparse
import hashlib
import hmac
import sys


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


def check_line(line: str, secret: bytes) -> list[str]:
    """Compare one `dice: v1 ...` line with what the secret gives; return the differences."""
    fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
    orders = "" if fields["orders"] == "-" else fields["orders"]
    printed = [] if fields["rolls"] == "-" else [
        tuple(int(x) for x in r.split(":")) for r in fields["rolls"].split(",")]
    words = dice_stream(secret, fields["key"], orders)
    problems = []
    for number, (sides, value) in enumerate(printed, start=1):
        fair = roll(words, sides)
        if fair != value:
            problems.append(f"roll {number} (d{sides}): printed {value}, the secret gives {fair}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", "--key", required=True,
                        help="the revealed dice key of the period and branch (hex)")
    parser.add_argument("--commitment", help="the commitment published before the period (hex)")
    args = parser.parse_args()
    secret = bytes.fromhex(args.secret)
    failed = False
    if args.commitment:
        if hashlib.sha256(secret).hexdigest() != args.commitment.strip().lower():
            print("COMMITMENT MISMATCH: this secret is not the one committed to")
            failed = True
        else:
            print("commitment OK")
    lines = [ln.strip().strip("`") for ln in sys.stdin if "dice: v1" in ln]
    for line in lines:
        line = line[line.index("dice: v1"):].strip().strip("`")
        key = dict(w.split("=", 1) for w in line.split() if "=" in w).get("key", "?")
        problems = check_line(line, secret)
        print(f"{'OK  ' if not problems else 'FAIL'} {key}")
        for problem in problems:
            print(f"     {problem}")
        failed = failed or bool(problems)
    if not lines:
        print("no 'dice: v1' line found in the input")
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
