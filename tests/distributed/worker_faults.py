"""Run by the launcher on 2 ranks with one fault mode (tests/distributed/test_launch.py):
raise (rank 1 raises), kill (rank 1 is SIGKILLed while rank 0 waits in all_reduce), hang
(rank 1 never joins the all_reduce), nojoin (rank 1 never calls init_parallel_env)."""
import os
import signal
import sys
import time

import sampan as paddle
import sampan.distributed as dist


def main(mode):
    rank = int(os.environ["PADDLE_TRAINER_ID"])
    if mode == "nojoin" and rank == 1:
        time.sleep(60)
    dist.init_parallel_env(timeout=3)
    x = paddle.ones([4])
    if rank == 1:
        if mode == "raise":
            raise ValueError("rank 1 fails on purpose")
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "hang":
            time.sleep(60)
    dist.all_reduce(x)
    print(f"rank {rank}: all_reduce returned {x.numpy().tolist()}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
