"""Probes for fake make capacity runs: what a search that found `found` and missed at `failed_at`
probed, so that the capacity model (bankbench.analyse.capacity_model) places the capacity between them."""

MISS_ABOVE = 50  # it/s: where a fake search missed, above the rate it found


def around(found: int | None, failed_at: int | None) -> list[dict]:
    """Held at half of `found` and three times at it, missed twice at `failed_at` (None: never)."""
    if found is None:
        return [probe(100, False), probe(100, False)]
    held = [probe(found // 2, True), *(probe(found, True) for _ in range(3))]
    return held + ([probe(failed_at, False) for _ in range(2)] if failed_at is not None else [])


def probe(rate: int, held: bool) -> dict:
    return {"level": f"fake-u{rate}", "rate": rate, "heap_mb": None, "held": held,
            "missed": [] if held else ["p99"]}
