"""Exact payout arithmetic in integer cents.

A payout is an exact fraction of the wager (7 to 6 on $5 is 583 1/3 cents). The table pays
it rounded down to its payout unit and the rounding remainder is reported, never lost
(DESIGN.md, Games engine).
"""

from __future__ import annotations

from fractions import Fraction

ZERO = Fraction(0)


def pay(amount: int, num: int, den: int, unit: int) -> tuple[int, Fraction]:
    """Pays `amount` at `num` to `den`, rounded down to `unit` cents.

    Args:
        amount: the winning stake in cents.
        num: the odds' numerator ("7" of 7 to 6).
        den: the odds' denominator ("6" of 7 to 6).
        unit: the table's payout unit in cents (1 pays to the cent).

    Returns:
        (paid cents, remainder cents as an exact Fraction in [0, unit)).
    """
    exact_num = amount * num
    step = den * unit
    paid = (exact_num // step) * unit
    rest = exact_num - paid * den
    return paid, (Fraction(rest, den) if rest else ZERO)


def fraction_str(value: Fraction) -> str:
    """Renders a remainder for JSON: "0", "1/3" (cents)."""
    return str(value)


def cents(dollars: float | int | str) -> int:
    """Converts a dollar amount given by a person ("12.50") to integer cents exactly."""
    value = Fraction(str(dollars)) * 100
    if value.denominator != 1:
        raise ValueError(f"{dollars!r} is not a whole number of cents")
    return int(value)


def dollars(amount: int) -> str:
    """Formats cents as dollars for people: 1250 -> "$12.50"."""
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 100)
    return f"{sign}${whole:,}.{part:02d}"
