"""The model cache: same model as a fresh parse, skips yourdfpy, never trusted blindly."""

import numpy as np
import pytest

from conftest import URDF
from hodyn_cli import model_cache, urdf
from hodyn_cli.errors import ModelError


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HODYN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HODYN_NO_CACHE", raising=False)
    return tmp_path / "cache"


def no_parse(*args, **kwargs):
    raise AssertionError("parsed the URDF although it was cached")


def test_cached_model_equals_the_parsed_one(cache, monkeypatch, robot):
    _, path, fresh = robot
    first = urdf.load_model(path)  # parses and stores
    assert len(list(cache.iterdir())) == 1
    monkeypatch.setattr(urdf, "_parse", no_parse)
    cached = urdf.load_model(path)
    for name in ("joint_names", "joint_types", "link_names", "name", "root_link", "diagnostics",
                 "source_sha256"):
        assert getattr(cached, name) == getattr(first, name) == getattr(fresh, name), name
    for name in ("parent", "B", "X", "M", "limits"):
        assert np.array_equal(getattr(cached, name), getattr(fresh, name)), name
    assert list(cached.links) == list(fresh.links)
    for link, frame in fresh.links.items():
        assert cached.links[link].body == frame.body and np.array_equal(cached.links[link].T, frame.T)


def test_changed_file_corrupt_entry_and_switch_off(cache, monkeypatch, tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text((URDF / "planar_2r.urdf").read_text())
    urdf.load_model(path)
    (entry,) = cache.iterdir()
    path.write_text((URDF / "planar_2r.urdf").read_text().replace('value="1.2"', 'value="1.3"'))
    assert urdf.load_model(path).mass[0] == pytest.approx(1.3)  # new bytes, new entry
    entry.write_bytes(b"not an npz file")
    path.write_text((URDF / "planar_2r.urdf").read_text())
    assert urdf.load_model(path).mass[0] == pytest.approx(1.2)  # corrupt entry: parsed again
    monkeypatch.setenv("HODYN_NO_CACHE", "1")
    monkeypatch.setattr(urdf, "_parse", no_parse)
    assert model_cache.cache_dir() is None
    with pytest.raises(AssertionError, match="parsed"):
        urdf.load_model(path)


def test_strict_applies_to_cached_models(cache, tmp_path):
    path = tmp_path / "odd.urdf"
    text = (URDF / "planar_2r.urdf").read_text()
    start = text.index("<inertia ")
    end = text.index("/>", start) + 2
    path.write_text(text[:start] + '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>'
                    + text[end:])
    assert any(d.level == "warning" for d in urdf.load_model(path).diagnostics)
    with pytest.raises(ModelError, match="triangle"):
        urdf.load_model(path, strict=True)  # from the cache, still an error


def test_edited_model_code_misses_the_cache(cache, monkeypatch):
    urdf.load_model(URDF / "planar_2r.urdf")
    monkeypatch.setattr(model_cache, "_builder_hash", lambda: "0123456789abcdef")
    assert model_cache.load(urdf.load_model(URDF / "planar_2r.urdf").source_sha256) is not None
    assert len(list(cache.iterdir())) == 2  # the first entry was not used: parsed and stored again
