"""The load: the profiles (profiles.toml) expanded into levels, and JMeter, which drives them."""
