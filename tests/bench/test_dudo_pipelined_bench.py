"""bench.dudo_pipelined's command line: an unknown build in --order is refused before anything is built."""
import pytest

from bench import dudo_pipelined


def test_an_unknown_build_is_refused_before_any_build(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        dudo_pipelined.main([str(tmp_path / "ab"), "--order", "plain,fast"])
    assert e.value.code == 2
    assert "unknown build 'fast'" in capsys.readouterr().err
    assert not (tmp_path / "ab").exists()
