"""Kills a process with SIGKILL while it writes a checkpoint, then shows that the previous checkpoint
is intact and loads, and that the half-written file is never taken for a checkpoint.
usage: check_checkpoint_kill.py IO_CKPT_CRASH_BINARY SCRATCH_DIR
"""
import os
import shutil
import signal
import subprocess
import sys
import time


def main(exe, scratch):
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    subprocess.run([exe, "good", scratch], check=True)
    tmp = os.path.join(scratch, ".checkpoint_0000000002.h5.tmp")
    final = os.path.join(scratch, "checkpoint_0000000002.h5")
    p = subprocess.Popen([exe, "big", scratch], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    deadline = time.time() + 60
    # Kill as soon as the temporary file has some data in it: the writer is in the middle of the write.
    while time.time() < deadline and not (os.path.exists(tmp) and os.path.getsize(tmp) > 1 << 20):
        time.sleep(0.001)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL, f"the writer was not killed mid-write (exit {p.returncode})"
    assert not os.path.exists(final), "the writer finished before the kill: nothing was tested"
    size = os.path.getsize(tmp) if os.path.exists(tmp) else 0
    print(f"killed the writer with {size} bytes of the temporary written")
    subprocess.run([exe, "verify", scratch], check=True)
    print("OK: previous checkpoint intact after SIGKILL mid-write")
    shutil.rmtree(scratch, ignore_errors=True)  # do not leave the big temporary behind


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
