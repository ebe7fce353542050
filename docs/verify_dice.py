#!/usr/bin/env python3
"""Check maester's dice yourself. Needs only Python 3 (no packages) for the dice; checking the
signature of a public beacon round (drand) also needs py-ecc: pip install "py-ecc>=8,<9".

1. Copy the post (or just its `dice: v1 ...` lines) into a file, e.g. post.txt. Add the text of
   the [Dice] post that revealed the key: it lists every public event of the period with all
   its rolls, so a post that leaves a roll out no longer agrees with it.
2. Take the revealed secret of that period and branch from the reveal post (public rolls) or
   from your claim's dispatch (your private rolls).
3. Run:  python3 verify_dice.py --secret HEX [--commitment HEX] [--period N --branch B] < post.txt

It prints OK for every dice line that the secret reproduces and names every roll that it does
not. A line with `beacon=N` is bound to drand's round N: the post's `beacon: drand ...` line
gives the round's randomness (SHA-256 of its signature, checked here) and its signature,
checked under the chain's public key (--beacon-key, quicknet's by default) when py-ecc is
installed; without py-ecc the dice are still checked and the signature is reported unchecked.
When the beacon line says the moment its round is bound to ("at or after ... UTC", as the
tick's own post and each round line of the reveal post do), the round must be the first at or
after that moment. A key belongs to one period and one branch: lines of another are skipped when you name
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
from datetime import datetime, timezone

MAX_SIDES = 2**32 - 1  # a die drawn from 32-bit words; with 2**32 sides every word is thrown away
FIELDS = ("period", "branch", "key", "orders", "rolls")
QUICKNET_KEY = ("83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3a"
                "c6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4a"
                "f5a6e9c76a4bc09e76eae8991ef5ece45a")
SUITE = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"  # drand's bls-unchained-g1-rfc9380


def dice_stream(secret: bytes, key: str, orders: str, beacon: str = ""):
    """Yield 32-bit words: SHA-256(seed || counter), seed = HMAC(secret, 'key|orders'), or
    HMAC(secret, 'key|orders|drand:ROUND:RANDOMNESS') for a line bound to a beacon round."""
    message = f"{key}|{orders}" + (f"|{beacon}" if beacon else "")
    seed = hmac.new(secret, message.encode(), hashlib.sha256).digest()
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
            "beacon": whole(fields["beacon"]) if "beacon" in fields else None,
            "rolls": tuple(rolls)}


def parse_beacon(line: str) -> tuple[int, bytes]:
    """(round, signature) of a `beacon: drand ...` line; ValueError saying what is wrong."""
    fields = dict(w.split("=", 1) for w in line.split()[2:] if "=" in w)
    number = whole(fields.get("round", "x"))
    signature = fields.get("signature", "")
    if not re.fullmatch(r"[0-9a-f]{96}", signature):
        raise ValueError("signature= must be 96 hexadecimal digits")
    randomness = hashlib.sha256(bytes.fromhex(signature)).hexdigest()
    if fields.get("randomness") != randomness:
        raise ValueError("randomness= is not the SHA-256 of the signature")
    return number, bytes.fromhex(signature)


def signature_ok(public_key: bytes, number: int, signature: bytes):
    """True/False: whether the signature is the chain's for that round (drand's scheme: BLS on
    G1 of SHA-256(round as 8 bytes big-endian), RFC 9380 hash to G1, key on G2); None when
    py-ecc is not installed."""
    try:
        from py_ecc.bls.g2_primitives import subgroup_check
        from py_ecc.bls.hash_to_curve import hash_to_G1
        from py_ecc.bls.point_compression import decompress_G1, decompress_G2
        from py_ecc.fields import optimized_bls12_381_FQ12 as FQ12
        from py_ecc.optimized_bls12_381.optimized_curve import G2, neg
        from py_ecc.optimized_bls12_381.optimized_pairing import final_exponentiate, miller_loop
    except ImportError:
        return None
    try:
        sig = decompress_G1(int.from_bytes(signature, "big"))
        key = decompress_G2((int.from_bytes(public_key[:48], "big"),
                             int.from_bytes(public_key[48:], "big")))
    except (ValueError, AssertionError):
        return False
    if not (subgroup_check(sig) and subgroup_check(key)):
        return False
    point = hash_to_G1(hashlib.sha256(number.to_bytes(8, "big")).digest(), SUITE, hashlib.sha256)
    pairs = miller_loop(G2, neg(sig), final_exponentiate=False) * miller_loop(
        key, point, final_exponentiate=False)
    return final_exponentiate(pairs) == FQ12.one()


def check_line(fields: dict, secret: bytes, beacons: dict) -> list[str]:
    """Compare one dice line's rolls with what the secret gives; return the differences."""
    mix = ""
    if fields["beacon"] is not None:
        signature = beacons.get(fields["beacon"])
        if signature is None:
            return [f"bound to beacon round {fields['beacon']}, and no 'beacon: drand' line "
                    "gives that round: paste the whole post"]
        mix = f"drand:{fields['beacon']}:{hashlib.sha256(signature).hexdigest()}"
    words = dice_stream(secret, fields["key"], fields["orders"], mix)
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
    parser.add_argument("--beacon-key", default=QUICKNET_KEY,
                        help="the drand chain's public key (hex; default: quicknet's)")
    parser.add_argument("--beacon-genesis", type=int, default=1692803367,
                        help="the chain's genesis, Unix seconds (default: quicknet's)")
    parser.add_argument("--beacon-period", type=int, default=3,
                        help="seconds between the chain's rounds (default: quicknet's, 3)")
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
    beacons = {}
    for raw in sys.stdin:
        if "beacon: drand" in raw:
            text = raw[raw.index("beacon: drand"):].split("`")[0].strip()
            try:
                number, signature = parse_beacon(text)
            except ValueError as exc:
                print(f"BAD  {text[:80]}\n     not a complete beacon line: {exc}")
                failed = True
                continue
            due = re.search(r"at or after (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC", raw)
            if due and number not in beacons:  # the round must be the first at or after it
                moment = datetime.strptime(due.group(1), "%Y-%m-%d %H:%M:%S").replace(
                    tzinfo=timezone.utc).timestamp()
                first = max(1, -int((args.beacon_genesis - moment) // args.beacon_period) + 1)
                if first == number:
                    print(f"OK   beacon round {number} is the first at or after {due.group(1)}")
                else:
                    print(f"FAIL beacon round {number} is not the first at or after "
                          f"{due.group(1)} UTC: that is round {first}")
                    failed = True
            if number not in beacons:
                verdict = signature_ok(bytes.fromhex(args.beacon_key), number, signature)
                if verdict is None:
                    print(f"NOTE beacon round {number}: signature not checked (install py-ecc: "
                          "pip install \"py-ecc>=8,<9\"); its randomness is its SHA-256")
                elif verdict:
                    print(f"OK   beacon round {number}: the chain's signature")
                else:
                    print(f"FAIL beacon round {number}: the signature is not the chain's")
                    failed = True
            beacons[number] = signature
            continue
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
        bound = f", beacon round {fields['beacon']}" if fields["beacon"] is not None else ""
        name = f"{fields['key']} (period {fields['period']}, branch {fields['branch']}{bound})"
        if ((args.period is not None and fields["period"] != args.period)
                or (args.branch is not None and fields["branch"] != args.branch)):
            print(f"SKIP {name}: another period or branch than this key's")
            continue
        problems = check_line(fields, secret, beacons)
        event = (fields["period"], fields["branch"], fields["key"], fields["orders"],
                 fields["beacon"])
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
