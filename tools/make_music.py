"""Synthesise the game's calm music loop into assets/music/loop.wav (numpy only, no samples).

Run from the checkout (it overwrites the file; commit it afterwards)::

    python tools/make_music.py            # writes assets/music/loop.wav
    python tools/make_music.py --out DIR  # somewhere else
    python tools/make_music.py --pcm      # plain 16-bit PCM instead (four times the size)

The tune: eight bars at about 64 beats a minute in F major (Fmaj7, Dm7, Bbmaj7, Csus,
Am7, Dm7, Gm7, Csus), a soft pad of detuned sines, a plucked bass on beats one and three,
and a quiet music-box line picked from the chord with a seeded generator. Every sound
that rings past the end of the loop is folded back onto its start, so the loop has no
seam when it repeats. Everything is seeded: the file comes out the same on every run.

The file is IMA ADPCM (4 bits a sample, about 11 kB a second of mono at 22050 Hz), which
SDL decodes when pygame loads it as a ``Sound``; the loop's length is a whole number of
ADPCM blocks so nothing pads its end.
"""

from __future__ import annotations

import argparse
import struct
import wave
from pathlib import Path

import numpy as np

RATE = 22050
BLOCK = 512                          # bytes per ADPCM block (mono)
BLOCK_SAMPLES = (BLOCK - 4) * 2 + 1  # 1017 samples per block
LENGTH = BLOCK_SAMPLES * 650         # 661050 samples: 29.98 s, a whole number of blocks
BARS = 8
BEATS = BARS * 4
BEAT = LENGTH / BEATS                # samples per beat (about 64 beats a minute)

#: (root, chord tones as semitones above F3) per bar.
CHORDS = [(0, (0, 4, 7, 11)), (-3, (-3, 0, 4, 7)), (-7, (-7, -3, 0, 4)), (-5, (-5, 0, 2, 7)),
          (4, (4, 7, 11, 14)), (-3, (-3, 0, 4, 7)), (2, (2, 5, 9, 12)), (-5, (-5, 0, 2, 7))]
F3 = 174.614


def freq(semitones: float) -> float:
    """The frequency ``semitones`` above F3."""
    return F3 * 2 ** (semitones / 12)


def _add(out: np.ndarray, start: int, sound: np.ndarray) -> None:
    """Mix ``sound`` into the loop at ``start``, folding what runs past the end onto the beginning."""
    n = len(out)
    start %= n
    while len(sound):
        part = sound[:n - start]
        out[start:start + len(part)] += part
        sound, start = sound[len(part):], 0


def pad_note(f: float, seconds: float) -> np.ndarray:
    """A soft pad voice: two slightly detuned sines and a faint octave, slow in and out."""
    n = int(RATE * (seconds + 1.2))
    t = np.arange(n) / RATE
    voice = np.sin(2 * np.pi * f * t) + np.sin(2 * np.pi * f * 1.003 * t + 1.0) + 0.2 * np.sin(4 * np.pi * f * t)
    attack = np.clip(t / 0.7, 0, 1) ** 2
    release = np.clip((seconds + 1.2 - t) / 1.2, 0, 1) ** 2
    swell = 0.85 + 0.15 * np.sin(2 * np.pi * t / seconds)
    return voice * attack * release * swell


def pluck(f: float, decay: float, bright: float = 0.25) -> np.ndarray:
    """A plucked note (bass or music box): a sine with a little third harmonic, dying away."""
    n = int(RATE * decay * 5)
    t = np.arange(n) / RATE
    body = np.sin(2 * np.pi * f * t) + bright * np.sin(6 * np.pi * f * t) * np.exp(-t * 6)
    return body * np.exp(-t / decay) * np.clip(t / 0.004, 0, 1)


def music() -> np.ndarray:
    """The loop as a float array in -1..1 at :data:`RATE`, :data:`LENGTH` samples long."""
    rng = np.random.default_rng(64)
    out = np.zeros(LENGTH)
    bar = 4 * BEAT
    for k, (root, tones) in enumerate(CHORDS):
        start = int(k * bar)
        for tone in tones:
            _add(out, start, 0.055 * pad_note(freq(tone), bar / RATE))
        _add(out, start, 0.30 * pluck(freq(root - 12), 0.55, 0.15))
        _add(out, int(start + 2 * BEAT), 0.22 * pluck(freq(root - 12 + 7), 0.45, 0.15))
        # The music box: eighth notes from the chord an octave up, some left out, never two alike in a row.
        last = None
        for step in range(8):
            if rng.random() < (0.35 if step % 2 else 0.15):
                continue
            choices = [t for t in tones if t != last]
            last = choices[int(rng.integers(len(choices)))]
            at = int(start + step * BEAT / 2)
            _add(out, at, (0.11 if step % 2 else 0.14) * pluck(freq(last + 12), 0.35))
    # A gentle low-pass (moving average, wrapped) takes the edge off the plucks.
    kernel = np.ones(3) / 3
    out = np.convolve(np.concatenate([out[-2:], out, out[:2]]), kernel, mode="same")[2:-2]
    return out / np.max(np.abs(out)) * 0.7


# -- IMA ADPCM -----------------------------------------------------------------
_STEPS = [7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80,
          88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598,
          658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327,
          3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289,
          16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767]
_INDEX = [-1, -1, -1, -1, 2, 4, 6, 8]


def adpcm_wav(samples: np.ndarray) -> bytes:
    """A mono IMA ADPCM ``.wav`` of ``samples`` (-1..1), whose length is a multiple of :data:`BLOCK_SAMPLES`."""
    pcm = (np.clip(samples, -1, 1) * 32000).astype(np.int32).tolist()
    assert len(pcm) % BLOCK_SAMPLES == 0
    data = bytearray()
    index = 0
    for b in range(0, len(pcm), BLOCK_SAMPLES):
        block = pcm[b:b + BLOCK_SAMPLES]
        predicted = block[0]
        data += struct.pack("<hBB", predicted, index, 0)
        codes = []
        for x in block[1:]:
            step = _STEPS[index]
            diff = x - predicted
            code = 8 if diff < 0 else 0
            diff = abs(diff)
            delta = step >> 3
            for bit in (4, 2, 1):
                if diff >= step:
                    code |= bit
                    diff -= step
                    delta += step
                step >>= 1
            predicted = max(-32768, min(32767, predicted - delta if code & 8 else predicted + delta))
            index = max(0, min(88, index + _INDEX[code & 7]))
            codes.append(code)
        data += bytes(lo | (hi << 4) for lo, hi in zip(codes[0::2], codes[1::2]))
    fmt = struct.pack("<HHIIHHHH", 0x11, 1, RATE, RATE * BLOCK // BLOCK_SAMPLES, BLOCK, 4, 2, BLOCK_SAMPLES)
    body = (b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"fact" + struct.pack("<II", 4, len(pcm))
            + b"data" + struct.pack("<I", len(data)) + bytes(data))
    return b"RIFF" + struct.pack("<I", len(body)) + body


def write_pcm(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.clip(samples, -1, 1) * 32000).astype("<i2").tobytes())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "assets" / "music"))
    parser.add_argument("--pcm", action="store_true", help="write 16-bit PCM instead of IMA ADPCM")
    args = parser.parse_args(argv)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "loop.wav"
    samples = music()
    if args.pcm:
        write_pcm(path, samples)
    else:
        path.write_bytes(adpcm_wav(samples))
    print(f"wrote {path} ({len(samples) / RATE:.2f} s, {path.stat().st_size // 1024} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
