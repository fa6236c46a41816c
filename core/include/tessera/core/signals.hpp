// Stopping well in batch jobs: SIGTERM, SIGINT and SIGUSR1 ask the run to finish its current step, write a
// checkpoint and its outputs' index, and exit with exit code kExitResume ("stopped early, resume me").
// A second signal aborts at once (exit 128+signal) without touching the last good checkpoint.
// A wall-time limit (like GROMACS -maxh) does the same as a signal before the limit is reached.
#pragma once
#include <mpi.h>

#include <chrono>
#include <string>

namespace tessera::signals {

// Exit code that means "stopped early with a checkpoint: requeue / resume me". Job templates test for it.
inline constexpr int kExitResume = 3;

// Install the handlers (idempotent). Called by the CLI front end before a run starts.
void install();
// True once a stop signal has arrived on this rank.
bool stop_requested();
// Which signal asked to stop (0 if none).
int stop_signal();
// For tests: forget a received signal.
void reset();

// Collective: true on every rank when any rank has a stop request or the deadline has passed.
// Cheap enough to call every few steps (one MPI_Allreduce of an int).
bool should_stop(MPI_Comm comm, const class Deadline* deadline = nullptr);
// The same with a condition of this rank's own (e.g. RunOptions::walltime_near(margin)): true on every rank
// when any rank has a stop signal or the condition (one collective).
bool should_stop(MPI_Comm comm, bool local_condition);

// Wall-time limit measured from construction. A margin leaves time for the final checkpoint.
class Deadline {
 public:
  Deadline() = default;  // no limit
  Deadline(double limit_seconds, double margin_seconds);
  bool active() const { return limit_ > 0; }
  bool passed() const;
  double remaining_seconds() const;

 private:
  double limit_ = 0, margin_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// Parse "HH:MM:SS", "MM:SS", "90m", "2h", "3600", "3600s" into seconds; throws tessera::Error otherwise.
double parse_duration(const std::string& s);

}  // namespace tessera::signals
