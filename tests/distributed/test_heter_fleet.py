"""Heterogeneous-PS roles without MPI: PaddleCloudRoleMaker with TRAINING_ROLE=HETER_TRAINER
(Paddle's variables), the launcher's heter ranks and their environment, trainer assignment."""
import pytest

import sampan.distributed.fleet as fleet
from sampan.distributed import launch
from sampan.distributed.ps.heter import trainers_of

HETERS = "127.0.0.1:6370,127.0.0.1:6371"


def _env(monkeypatch, **values):
    for key in ("PADDLE_TRAINER_ID", "POD_IP", "PADDLE_PORT", "HETER_DEVICE_TYPE"):
        monkeypatch.delenv(key, raising=False)
    base = {"PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1:6170", "PADDLE_TRAINERS_NUM": "3",
            "PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST": HETERS}
    for key, value in dict(base, **values).items():
        monkeypatch.setenv(key, value)


def test_heter_worker_role_from_the_environment(monkeypatch):
    _env(monkeypatch, TRAINING_ROLE="HETER_TRAINER", POD_IP="127.0.0.1", PADDLE_PORT="6371",
         HETER_DEVICE_TYPE="GPU")
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    assert role._is_heter_worker() and not role._is_worker() and not role._is_server()
    assert role._role_id() == 1 and role._heter_worker_num() == 2
    assert role._get_heter_worker_endpoints() == HETERS.split(",")
    assert role._heter_device_type() == "gpu" and role._is_heter_parameter_server_mode
    assert role._mpi_rank() == 1 + 3 + 1 and "HETER_WORKER" in role.to_string()


def test_trainer_sees_the_heter_workers_and_errors_are_clear(monkeypatch):
    _env(monkeypatch, TRAINING_ROLE="TRAINER", PADDLE_TRAINER_ID="2")
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    assert role._is_worker() and role._heter_worker_num() == 2 and role._mpi_rank() == 3
    assert role._heter_device_type() == "gpu"   # Paddle's default heter device
    _env(monkeypatch, TRAINING_ROLE="HETER_TRAINER", POD_IP="127.0.0.1", PADDLE_PORT="9")
    with pytest.raises(ValueError, match="POD_IP:PADDLE_PORT '127.0.0.1:9' is not in "
                                         "PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST"):
        fleet.PaddleCloudRoleMaker(is_collective=False)
    _env(monkeypatch, TRAINING_ROLE="TRAINER", HETER_DEVICE_TYPE="npu")
    with pytest.raises(ValueError, match="HETER_DEVICE_TYPE should be cpu, gpu or xpu"):
        fleet.PaddleCloudRoleMaker(is_collective=False)
    monkeypatch.delenv("PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST")
    _env(monkeypatch, TRAINING_ROLE="TRAINER", PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST="")
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    assert role._heter_worker_num() == 0 and not role._is_heter_parameter_server_mode


def test_launcher_places_heter_workers_after_the_trainers():
    args = launch._parser().parse_args(["--server_num", "1", "--trainer_num", "2",
                                        "--heter_worker_num", "2", "--heter_devices", "xpu",
                                        "train.py"])
    envs = [launch._heter_env(launch.ps_env(min(r, 2), 1, 2), r, 3, 2, "127.0.0.1", "xpu")
            for r in range(5)]
    roles = [e["TRAINING_ROLE"] for e in envs]
    assert roles == ["PSERVER", "TRAINER", "TRAINER", "HETER_TRAINER", "HETER_TRAINER"]
    assert envs[4]["PADDLE_CURRENT_ENDPOINT"] == envs[4]["PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST"
                                                         ].split(",")[1]
    assert "PADDLE_TRAINER_ID" not in envs[3] and envs[1]["HETER_DEVICE_TYPE"] == "xpu"
    assert launch.ps_roles(args) == (1, 2)
    no_server = launch._parser().parse_args(["--trainer_num", "1", "--heter_worker_num", "1",
                                             "train.py"])
    assert launch.ps_roles(no_server) == (0, 1)
    with pytest.raises(SystemExit, match="at least one server"):
        launch.ps_roles(launch._parser().parse_args(["--trainer_num", "1", "train.py"]))


def test_trainers_are_spread_over_the_heter_workers():
    assert [trainers_of(w, 5, 2) for w in range(2)] == [[0, 2, 4], [1, 3]]


def test_only_one_heter_worker_per_job(monkeypatch):
    from sampan.distributed.ps import heter
    _env(monkeypatch, TRAINING_ROLE="TRAINER", PADDLE_TRAINER_ID="0")
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    with pytest.raises(ValueError, match="fleet.init_worker: the job has 2 heter workers"):
        heter.enter_trainer(None, role, 1.0)
    _env(monkeypatch, TRAINING_ROLE="HETER_TRAINER", POD_IP="127.0.0.1", PADDLE_PORT="6370")
    with pytest.raises(ValueError, match="fleet.init_server: the job has 2 heter workers"):
        heter.enter_worker(None, fleet.PaddleCloudRoleMaker(is_collective=False), 1.0)
