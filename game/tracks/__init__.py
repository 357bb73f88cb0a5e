"""Level packs (TOML) and Karopapier maps turned into core tracks, with located errors."""
