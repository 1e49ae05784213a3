"""make pgwire's counting (bankbench.run.experiments.pg_capture) on packets and samples made here:
no capture, no process."""

from __future__ import annotations

from bankbench.run.experiments.pg_capture import Packet, Sample, sampled, spread, tally

PG = 5432


def sent(t: float, stream: str, *messages: str, syn: bool = False) -> Packet:
    return Packet(t, PG, 0 if syn else 40, stream, syn, False, list(messages))


def answered(t: float, stream: str, *messages: str) -> Packet:
    return Packet(t, 40000, 40, stream, False, True, list(messages))


def test_messages_segments_and_backends_are_counted_per_request_within_the_window() -> None:
    packets = [
        sent(0.5, "0", "Bind", "Execute", "Sync"),  # before the window
        sent(1.0, "0", "Parse", "Bind", "Describe", "Execute", "Sync"), answered(1.001, "0", "Ready for query"),
        sent(1.5, "1", "Bind", "Execute", "Sync"), answered(1.501, "1", "Ready for query"),
        sent(1.6, "2", syn=True),  # a new connection: no payload
        sent(2.0, "0", "Bind", "Execute", "Sync"),  # at the window's end: after it
    ]
    figures = tally(packets, PG, (1.0, 2.0), requests=2)
    assert figures["to_pg"] == {"Bind": 1.0, "Describe": 0.5, "Execute": 1.0, "Parse": 0.5, "Sync": 1.0}
    assert figures["from_pg"] == {"Ready for query": 1.0}
    assert (figures["segments_to_pg"], figures["segments_from_pg"], figures["new_connections"]) == (1.0, 1.0, 0.5)
    assert figures["backends"] == 2
    assert figures["backends_for_half"] == 1


def test_the_spread_tells_a_few_warm_backends_from_many_taken_in_turn() -> None:
    warm = ["a"] * 8 + ["b", "c"]  # one backend runs most statements, one after another
    in_turn = ["a", "b", "c", "d"] * 3  # every backend in turn, as threads that each keep their own
    assert spread(warm) == {"backends_for_half": 1, "same_backend_share": round(7 / 9, 4)}
    assert spread(in_turn) == {"backends_for_half": 2, "same_backend_share": 0.0}
    assert spread([]) == {}


def test_switches_and_cpu_are_per_request_between_the_first_and_last_sample_in_the_window() -> None:
    samples = [Sample(t, 100 * t, 10 * t, 0.1 * t, 0.05 * t, 0.01 * t, 0.02 * t) for t in (0.0, 1.0, 2.0, 3.0)]
    samples.append(Sample(9.0, 10_000, 1000, 50.0, 50.0, 50.0, 50.0))  # after the window
    assert sampled(samples, (0.5, 3.5), rate=100.0) == {
        "pg_voluntary_switches": 1.0, "pg_involuntary_switches": 0.1,  # 200 and 20 over 200 requests
        "pg_backend_user_ms": 1.0, "pg_backend_system_ms": 0.5, "pg_background_ms": 0.1, "softirq_ms": 0.2}
    assert sampled(samples, (0.5, 1.5), rate=100.0) == {}
