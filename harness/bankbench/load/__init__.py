"""The load: the profiles (profiles.toml) expanded into levels, and JMeter, which drives them.

See docs/benchmarks.md#profiles and docs/benchmarks.md#two-load-generators."""
