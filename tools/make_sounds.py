"""Synthesise the game's small sound effects into assets/sounds/*.wav (numpy only, no samples).

Run from the checkout (it overwrites the files; commit them afterwards)::

    python tools/make_sounds.py            # writes assets/sounds/
    python tools/make_sounds.py --out DIR  # somewhere else

Sounds: ``scratch1..3`` (a pencil stroke: band-limited noise with a rough envelope),
``crash`` (a thump under a burst of noise), ``fanfare`` (a bright four-note arpeggio),
``tick`` (a menu click), ``confirm`` and ``back`` (two short blips), ``join`` (a rising
chirp). Everything is seeded, so the files come out the same on every run.
"""

from __future__ import annotations

import argparse
import wave
from pathlib import Path

import numpy as np

RATE = 22050


def _env(n: int, attack: float, release: float) -> np.ndarray:
    t = np.arange(n) / RATE
    a = np.clip(t / max(attack, 1e-4), 0, 1)
    r = np.clip((n / RATE - t) / max(release, 1e-4), 0, 1)
    return a * r


def _noise(rng: np.random.Generator, n: int, smooth: int) -> np.ndarray:
    raw = rng.standard_normal(n + smooth)
    kernel = np.ones(smooth) / smooth
    return np.convolve(raw, kernel, mode="same")[:n]


def scratch(seed: int) -> np.ndarray:
    """A pencil line: grainy high noise, its loudness wobbling as the lead catches the paper."""
    rng = np.random.default_rng(seed)
    n = int(RATE * (0.16 + 0.04 * seed))
    hiss = rng.standard_normal(n) - _noise(rng, n, 6)  # high-passed noise
    grain = 0.55 + 0.45 * np.abs(np.sin(np.arange(n) / RATE * 2 * np.pi * (38 + 9 * seed)))
    return 0.35 * hiss * grain * _env(n, 0.01, 0.06)


def crash() -> np.ndarray:
    rng = np.random.default_rng(11)
    n = int(RATE * 0.45)
    t = np.arange(n) / RATE
    thump = np.sin(2 * np.pi * (90 - 60 * t) * t) * np.exp(-t * 9)
    burst = _noise(rng, n, 3) * np.exp(-t * 7)
    return 0.6 * thump + 0.5 * burst


def tone(freq: float, seconds: float, shape: str = "triangle") -> np.ndarray:
    n = int(RATE * seconds)
    t = np.arange(n) / RATE
    phase = (t * freq) % 1.0
    wave_ = 4 * np.abs(phase - 0.5) - 1 if shape == "triangle" else np.sign(np.sin(2 * np.pi * freq * t)) * 0.5
    return wave_ * _env(n, 0.005, seconds * 0.6)


def fanfare() -> np.ndarray:
    notes = [(523.25, 0.12), (659.25, 0.12), (783.99, 0.12), (1046.5, 0.45)]
    parts = [0.45 * tone(f, s) + 0.12 * tone(f * 2, s, "square") for f, s in notes]
    return np.concatenate(parts)


def blip(freq: float, seconds: float) -> np.ndarray:
    return 0.4 * tone(freq, seconds)


def join() -> np.ndarray:
    n = int(RATE * 0.18)
    t = np.arange(n) / RATE
    return 0.4 * np.sin(2 * np.pi * (440 + 1400 * t) * t) * _env(n, 0.005, 0.08)


def sounds() -> dict[str, np.ndarray]:
    """Every sound by file stem, as float arrays in -1..1 at :data:`RATE`."""
    out = {f"scratch{k}": scratch(k) for k in (1, 2, 3)}
    out.update(crash=crash(), fanfare=fanfare(), tick=blip(1800, 0.03), confirm=blip(880, 0.08),
               back=blip(440, 0.08), join=join())
    return out


def write_wav(path: Path, samples: np.ndarray) -> None:
    data = (np.clip(samples, -1, 1) * 32000).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(data.tobytes())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "assets" / "sounds"))
    args = parser.parse_args(argv)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, samples in sounds().items():
        write_wav(folder / f"{name}.wav", samples)
        print(f"wrote {folder / name}.wav ({len(samples) / RATE:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
