"""`python3 -m sonotype.hits.onsets --command`: a detector of one's own (a shell command printing one
onset time a line, {wav} standing for the loop) is run on the loop's path, even one with a space
in it, and named in the table as asked."""

from types import SimpleNamespace

from sonotype.hits.onsets import command_onsets, detectors


def test_the_command_gets_the_loop_and_its_times_are_read(tmp_path):
    wav = tmp_path / "a loop.wav"
    wav.write_bytes(b"RIFF")
    assert command_onsets("test -f {wav} && printf '0.5\\n1.25\\n'", wav) == [0.5, 1.25]
    assert command_onsets("true {wav}", wav) == []


def test_a_named_command_is_a_detector_of_its_name():
    args = SimpleNamespace(cli="sonotype", classify_args=[], baseline="", aubio_thresholds=[],
                           command=["name:quick=echo 0.25 # {wav}", "echo 1 {wav}"])
    found = dict(detectors(args))
    assert found["quick"]("x.wav") == [0.25]
    assert "echo 1 {wav}" in found
