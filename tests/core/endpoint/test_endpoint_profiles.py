"""Saved endpoint profiles: they round-trip, never hold a key, and a bad file loses nothing."""

import json

from desktop_app.core.endpoint.profiles import EndpointProfile, load_profiles, save_profiles
from desktop_app.core.endpoint.types import EndpointConfig

CANARY = "sk-canary-4f1e9b7d"


def test_profiles_round_trip(tmp_path):
    path = tmp_path / "config" / "endpoints.json"
    profiles = [EndpointProfile("vLLM box", "http://gpu:8000/v1", "qwen", "vllm"),
                EndpointProfile("llama", "http://localhost:8080")]
    save_profiles(path, profiles)
    loaded = load_profiles(path)
    assert loaded.problem is None
    assert list(loaded.profiles) == profiles
    assert loaded.profiles[0].to_config("k").api_key == "k"


def test_a_missing_file_is_no_profiles_and_no_problem(tmp_path):
    loaded = load_profiles(tmp_path / "endpoints.json")
    assert loaded.profiles == () and loaded.problem is None


def test_no_key_reaches_the_file_even_when_given(tmp_path):
    path = tmp_path / "endpoints.json"
    config = EndpointConfig("http://gpu:8000", model="m", api_key=CANARY)
    profile = EndpointProfile.from_config("secret one", config, "vllm")
    save_profiles(path, [profile])
    assert CANARY not in path.read_text()
    assert CANARY not in repr(profile)
    assert load_profiles(path).profiles[0].to_config().api_key is None
    assert all(CANARY not in f.read_text() for f in tmp_path.rglob("*") if f.is_file())


def test_a_corrupt_file_is_reported_in_one_line_and_kept(tmp_path):
    path = tmp_path / "endpoints.json"
    path.write_text('{"profiles": [ {"name": "half')
    loaded = load_profiles(path)
    assert loaded.profiles == ()
    assert "not valid JSON" in loaded.problem and "\n" not in loaded.problem
    assert loaded.backup == tmp_path / "endpoints.json.bad"
    assert loaded.backup.read_text() == path.read_text()
    # Loading it again (the app restarted without saving) makes no second copy...
    assert load_profiles(path).backup == loaded.backup
    # ...and saving over it keeps the backup.
    save_profiles(path, [EndpointProfile("new", "http://h:1")])
    assert loaded.backup.read_text() == '{"profiles": [ {"name": "half'
    assert [p.name for p in load_profiles(path).profiles] == ["new"]


def test_an_earlier_backup_is_never_overwritten(tmp_path):
    path = tmp_path / "endpoints.json"
    (tmp_path / "endpoints.json.bad").write_text("older")
    path.write_text("[1, 2]")
    loaded = load_profiles(path)
    assert "no 'profiles' list" in loaded.problem
    assert loaded.backup == tmp_path / "endpoints.json.bad.1"
    assert (tmp_path / "endpoints.json.bad").read_text() == "older"


def test_unreadable_entries_are_skipped_and_the_rest_kept(tmp_path):
    path = tmp_path / "endpoints.json"
    path.write_text(json.dumps({"version": 1, "profiles": [
        {"name": "good", "base_url": "http://h:1", "model": "m"},
        {"name": "", "base_url": "http://h:2"},
        {"base_url": "http://h:3"},
        "nonsense",
        {"name": "good", "base_url": "http://dup"},
    ]}))
    loaded = load_profiles(path)
    assert [p.name for p in loaded.profiles] == ["good"]
    assert "skipped 4" in loaded.problem and loaded.backup is not None
