#!/usr/bin/env bash
# The built LV2 in real LV2 hosts from Debian: lilv's lv2ls/lv2info find it under its URI (with the
# metadata cmake/Lv2TurtleFixes.cmake completes: its class), and jalv runs it as a JACK client on a
# dummy (soundcard-free) JACK server, headless. A JACK client of ours (sonotype_jack_feed, built from
# Tests/host/JackSignalFeed.cpp) plays an example clip into the plugin's audio inputs, records its
# audio outputs and its MIDI output: the audio must come back bit-exact (the plugin passes audio
# through) and the analysis must send at least one MIDI note.
# Usage: lv2_jalv_test.sh <path of the built Sonotype.lv2> <plugin URI>
# Environment: SONOTYPE_JACK_FEED (the feed client), SONOTYPE_EXAMPLE_CLIP (a WAV file).
set -euo pipefail
bundle_dir="$(dirname "$1")"
export LV2_PATH="$bundle_dir"
uri="$2"
feed="${SONOTYPE_JACK_FEED:?path of sonotype_jack_feed}"
clip="${SONOTYPE_EXAMPLE_CLIP:?path of an example clip}"
work="$(mktemp -d)"
export JACK_DEFAULT_SERVER="sonotype-test-$$"
deadline=120 # seconds; only ever reached when something hangs
cleanup() {
    exec 3>&- 2>/dev/null || true
    for pid in ${feed_pid:-} ${jalv_pid:-} ${jackd_pid:-}; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*.txt "$work"/*.log; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# Waits for a condition (a command) with the deadline; never a timed assertion.
wait_for() {
    local what="$1"; shift
    for _ in $(seq $((deadline * 10))); do "$@" > /dev/null 2>&1 && return 0; sleep 0.1; done
    fail "gave up waiting ${deadline} s for $what"
}

lv2ls > "$work/lv2ls.txt"
grep -qx "$uri" "$work/lv2ls.txt" || fail "lv2ls does not list $uri"
lv2info "$uri" > "$work/lv2info.txt" || fail "lv2info cannot read $uri"
grep -q "Name: *Sonotype" "$work/lv2info.txt" || fail "lv2info: wrong name"
grep -q "Binary: *file://.*Sonotype.lv2/libSonotype.so" "$work/lv2info.txt" || fail "lv2info: no binary"
grep -q "Author Email: *mailto:.*@" "$work/lv2info.txt" || fail "lv2info: the author e-mail is not a mailto: URI"
# The plugin classes are defined by LV2's own bundles: with them on the path, lilv names the class.
# Only LV2's core bundle joins the path: other packages' folders in /usr/lib/lv2 (avldrums.lv2-soundfont
# installs one with sound fonts and no manifest) are not ours to read.
if [ -d /usr/lib/lv2/core.lv2 ]; then
    mkdir "$work/lv2" && ln -s /usr/lib/lv2/core.lv2 "$work/lv2/core.lv2"
    LV2_PATH="$bundle_dir:$work/lv2" lv2info "$uri" > "$work/lv2info-classes.txt" || fail "lv2info cannot read $uri"
    grep -q "Class: *Analyser Plugin" "$work/lv2info-classes.txt" || fail "lv2info: the class is not Analyser Plugin"
fi
# What cmake/Lv2TurtleFixes.cmake adds to JUCE's dsp.ttl (lv2lint's findings): float ranges written
# as decimals, a license.
ttl="$1/dsp.ttl"
if grep -En "(lv2:default|lv2:minimum|lv2:maximum|rdf:value)[[:space:]]+-?[0-9]+[[:space:]]*(;|\.[[:space:]]*$|$)" "$ttl"; then
    fail "$ttl: whole numbers where the parameters are floats (above)"
fi
grep -q "doap:license <http" "$ttl" || fail "$ttl: no doap:license"
grep -q "foaf:mbox <mailto:[^>]*@" "$ttl" || fail "$ttl: the maintainer's foaf:mbox is not a mailto: URI"
echo "lv2ls/lv2info: $uri found, an Analyser Plugin with a license, float ranges and a mailto: e-mail"

sox "$clip" -r 48000 -c 1 -t f32 "$work/signal.f32" repeat 1 || fail "sox could not convert $clip"

jackd --no-realtime -d dummy -r 48000 -p 1024 > "$work/jackd.log" 2>&1 &
jackd_pid=$!
wait_for "the dummy JACK server" jack_lsp

# jalv reads commands on stdin: a FIFO we hold open until the end (jalv exits cleanly on EOF).
mkfifo "$work/jalv.in"
jalv -n sonotype-jalv "$uri" < "$work/jalv.in" > "$work/jalv.txt" 2>&1 &
jalv_pid=$!
exec 3> "$work/jalv.in"
"$feed" "$work/signal.f32" sonotype-feed "$deadline" > "$work/feed.txt" 2>&1 &
feed_pid=$!
wait_for "jalv's ports" sh -c "jack_lsp | grep -qx 'sonotype-jalv:audio_out_2'"
wait_for "the feed's ports" sh -c "jack_lsp | grep -qx 'sonotype-feed:midi_in'"
jack_lsp -t > "$work/ports.txt" 2>&1
for port in audio_in_1 audio_in_2 audio_out_1 audio_out_2; do
    grep -q "^sonotype-jalv:$port$" "$work/ports.txt" || fail "no JACK port $port"
done
grep -A1 "^sonotype-jalv:out$" "$work/ports.txt" | grep -q "midi" || fail "no MIDI output port"

jack_connect sonotype-feed:out sonotype-jalv:audio_in_1
jack_connect sonotype-feed:out sonotype-jalv:audio_in_2
jack_connect sonotype-jalv:audio_out_1 sonotype-feed:in_1
jack_connect sonotype-jalv:audio_out_2 sonotype-feed:in_2
jack_connect sonotype-jalv:out sonotype-feed:midi_in
feed_status=0
wait "$feed_pid" || feed_status=$?
feed_pid=
[ "$feed_status" -eq 0 ] || fail "the feed client reports a failure ($feed_status)"

echo controls >&3
exec 3>&-
wait_for "jalv to exit" sh -c "! kill -0 $jalv_pid"
jalv_status=0
wait "$jalv_pid" || jalv_status=$?
jalv_pid=
[ "$jalv_status" -eq 0 ] || fail "jalv exited with an error ($jalv_status)"
grep -q "^Plugin: *$uri" "$work/jalv.txt" || fail "jalv did not load the plugin"
grep -q "sonotype_threshold" "$work/jalv.txt" || fail "jalv did not list the plugin's parameters"

echo "jalv: $(grep -v "^ready$" "$work/feed.txt")"
echo "jalv: ran $uri on a dummy JACK server at 48 kHz: audio passed through bit-exactly, MIDI notes out"
