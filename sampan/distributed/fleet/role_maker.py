"""Role makers: who this process is in a fleet job. PaddleCloudRoleMaker reads the
environment the launcher sets (collective: PADDLE_TRAINER_ID/PADDLE_TRAINERS_NUM; parameter
server: TRAINING_ROLE, PADDLE_PSERVERS_IP_PORT_LIST, POD_IP + PADDLE_PORT, ...);
UserDefinedRoleMaker takes the same facts as arguments. A heterogeneous PS job adds heter
workers (TRAINING_ROLE=HETER_TRAINER, PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST, HETER_DEVICE_TYPE):
MPI ranks after the trainers.
"""
from __future__ import annotations

import os


class Role:
    """Roles of a fleet process (values as Paddle's)."""
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4
    COORDINATOR = 5


def _split(text: str) -> list:
    return [e for e in (text or "").split(",") if e]


class RoleMakerBase:
    """The facts every role maker provides; fleet reads them through these methods."""

    def __init__(self, is_collective: bool = False) -> None:
        self._is_collective = bool(is_collective)
        self._role = Role.WORKER
        self._current_id = 0
        self._worker_count = 1
        self._server_endpoints: list = []
        self._worker_endpoints: list = []
        self._heter_endpoints: list = []
        self._heter_device = ""

    def _is_worker(self) -> bool:
        return self._role == Role.WORKER

    def _is_server(self) -> bool:
        return self._role == Role.SERVER

    def _is_first_worker(self) -> bool:
        return self._is_worker() and self._current_id == 0

    def _worker_num(self) -> int:
        return self._worker_count

    def _server_num(self) -> int:
        return len(self._server_endpoints)

    def _worker_index(self) -> int:
        return self._current_id if self._is_worker() else -1

    def _server_index(self) -> int:
        return self._current_id if self._is_server() else -1

    def _role_id(self) -> int:
        return self._current_id

    def _get_pserver_endpoints(self) -> list:
        return list(self._server_endpoints)

    def _is_heter_worker(self) -> bool:
        return self._role == Role.HETER_WORKER

    def _heter_worker_num(self) -> int:
        return len(self._heter_endpoints)

    def _get_heter_worker_endpoints(self) -> list:
        return list(self._heter_endpoints)

    def _heter_device_type(self) -> str:
        """The heter workers' device ("gpu", "xpu" or "cpu"; "" without heter workers)."""
        return self._heter_device

    @property
    def _is_heter_parameter_server_mode(self) -> bool:
        return bool(self._heter_endpoints)

    def _get_trainer_endpoints(self) -> list:
        return list(self._worker_endpoints)

    def _mpi_rank(self) -> int:
        """This process's rank in the MPI job the launcher started: servers first, then
        trainers, then heter workers."""
        if self._is_heter_worker():
            return self._server_num() + self._worker_num() + self._current_id
        return self._current_id + (0 if self._is_server() else self._server_num())

    def to_string(self) -> str:
        """The role facts as text."""
        role = {Role.WORKER: "WORKER", Role.SERVER: "SERVER",
                Role.HETER_WORKER: "HETER_WORKER"}.get(self._role, str(self._role))
        return (f"role: {role}, current_id: {self._current_id}, worker_num: "
                f"{self._worker_num()}, server_endpoints: {self._server_endpoints}, "
                f"worker_endpoints: {self._worker_endpoints}, collective: "
                f"{self._is_collective}")

    __repr__ = to_string


class PaddleCloudRoleMaker(RoleMakerBase):
    """The role from the environment of `paddle.distributed.launch`; without a launcher,
    one worker (parameter-server mode then runs the tables in this process).

    Args:
        is_collective (bool): collective (True) or parameter-server (False) job.

    Examples:
        >>> import sampan.distributed.fleet as fleet
        >>> role = fleet.PaddleCloudRoleMaker(is_collective=False)
        >>> role._is_worker(), role._worker_num()
        (True, 1)
    """

    def __init__(self, is_collective: bool = False, **kwargs) -> None:
        super().__init__(is_collective)
        env = os.environ
        self._worker_endpoints = _split(env.get("PADDLE_TRAINER_ENDPOINTS", ""))
        self._worker_count = int(env.get("PADDLE_TRAINERS_NUM") or 1)
        if is_collective:
            self._current_id = int(env.get("PADDLE_TRAINER_ID") or 0)
            return
        training_role = env.get("TRAINING_ROLE", "TRAINER")
        self._server_endpoints = _split(env.get("PADDLE_PSERVERS_IP_PORT_LIST", ""))
        self._heter_endpoints = _split(env.get("PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST", ""))
        if self._heter_endpoints:
            self._heter_device = env.get("HETER_DEVICE_TYPE", "gpu").lower()
            if self._heter_device not in ("cpu", "gpu", "xpu"):
                raise ValueError(f"PaddleCloudRoleMaker: HETER_DEVICE_TYPE should be cpu, gpu "
                                 f"or xpu, got {self._heter_device!r}")
        if training_role == "TRAINER":
            self._role = Role.WORKER
            self._current_id = int(env.get("PADDLE_TRAINER_ID") or 0)
        elif training_role == "PSERVER":
            self._role = Role.SERVER
            self._current_id = _own_index(env, self._server_endpoints, "server",
                                          "PADDLE_PSERVERS_IP_PORT_LIST")
        elif training_role == "HETER_TRAINER":
            self._role = Role.HETER_WORKER
            self._current_id = _own_index(env, self._heter_endpoints, "heter worker",
                                          "PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST")
        else:
            raise ValueError(f"PaddleCloudRoleMaker: TRAINING_ROLE must be TRAINER or "
                             f"PSERVER (or HETER_TRAINER), got {training_role!r}")


def _own_index(env, endpoints: list, role: str, variable: str) -> int:
    """This process's index in `endpoints`, found by its POD_IP:PADDLE_PORT."""
    me = f"{env.get('POD_IP', '')}:{env.get('PADDLE_PORT', '')}"
    if me not in endpoints:
        raise ValueError(f"PaddleCloudRoleMaker: this {role}'s POD_IP:PADDLE_PORT {me!r} is "
                         f"not in {variable} {endpoints}")
    return endpoints.index(me)


class UserDefinedRoleMaker(RoleMakerBase):
    """A role given by arguments instead of the environment.

    Args:
        is_collective (bool): collective or parameter-server job. Default False.
        init_gloo (bool): accepted (sampan talks MPI).
        current_id (int): this process's index among the processes of its role.
        role (Role): Role.WORKER or Role.SERVER.
        worker_num (int): number of trainers.
        server_endpoints (list[str]): the servers' "ip:port" (parameter-server jobs).
        worker_endpoints (list[str], optional): the trainers' "ip:port".

    Examples:
        >>> import sampan.distributed.fleet as fleet
        >>> role = fleet.UserDefinedRoleMaker(current_id=1, role=fleet.Role.SERVER,
        ...     worker_num=2, server_endpoints=["127.0.0.1:36011", "127.0.0.1:36012"])
        >>> role._is_server(), role._server_index(), role._server_num()
        (True, 1, 2)
    """

    def __init__(self, is_collective: bool = False, init_gloo: bool = False,
                 **kwargs) -> None:
        super().__init__(is_collective)
        api = "UserDefinedRoleMaker"
        unknown = set(kwargs) - {"current_id", "role", "worker_num", "server_endpoints",
                                 "worker_endpoints"}
        if unknown:
            raise TypeError(f"{api}: unknown arguments {sorted(unknown)}")
        self._current_id = kwargs.get("current_id", 0)
        self._role = kwargs.get("role", Role.WORKER)
        self._worker_endpoints = list(kwargs.get("worker_endpoints") or [])
        self._worker_count = kwargs.get("worker_num", len(self._worker_endpoints) or 1)
        self._server_endpoints = list(kwargs.get("server_endpoints") or [])
        if self._role not in (Role.WORKER, Role.SERVER):
            raise ValueError(f"{api}: role must be Role.WORKER or Role.SERVER, got "
                             f"{self._role!r}")
        if not isinstance(self._worker_count, int) or self._worker_count < 1:
            raise ValueError(f"{api}: worker_num must be a positive int, got "
                             f"{self._worker_count!r}")
        limit = self._server_num() if self._role == Role.SERVER else self._worker_count
        if not isinstance(self._current_id, int) or not 0 <= self._current_id < limit:
            raise ValueError(f"{api}: current_id must be in [0, {limit}) for this role, "
                             f"got {self._current_id!r}")
