#include "tessera/core/telemetry.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "tessera/core/error.hpp"

namespace tessera::telemetry {

bool Progress::stdout_is_tty() { return isatty(STDOUT_FILENO) == 1; }

Progress::Progress(ProgressConfig c) : c_(std::move(c)), tty_(stdout_is_tty()) {
  t0_ = last_ = std::chrono::steady_clock::now();
}

double Progress::rate() const {
  if (step0_ < 0) return 0;
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  return dt > 0 ? double(cur_step_ - step0_) * c_.work_per_step / dt : 0;
}

namespace {
std::string hms(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--:--";
  const long t = long(s + 0.5);
  return fmt::format("{:02d}:{:02d}:{:02d}", t / 3600, (t / 60) % 60, t % 60);
}
}  // namespace

std::string Progress::line(int64_t step, double sim_time, const Phases& ph) const {
  const auto now = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(now - t0_).count();
  const double r = rate();
  std::string s = fmt::format("step {:>9d}", step);
  if (c_.total_steps > 0) s += fmt::format("/{} ({:5.1f}%)", c_.total_steps, 100.0 * double(step) / double(c_.total_steps));
  s += fmt::format("  t = {:.6g}  {:.4g} {}", sim_time, r * c_.unit_scale, c_.unit);
  const double tot = ph.compute + ph.comm + ph.io;
  if (tot > 0)
    s += fmt::format("  [compute {:.0f}% comm {:.0f}% io {:.0f}%]", 100 * ph.compute / tot, 100 * ph.comm / tot,
                     100 * ph.io / tot);
  s += fmt::format("  wall {}", hms(wall));
  if (c_.total_steps > 0 && step > step0_ && step0_ >= 0) {
    const double per = wall / double(step - step0_);
    s += fmt::format("  ETA {}", hms(per * double(c_.total_steps - step)));
  } else if (c_.total_steps == 0 && c_.total_time > 0 && sim_time > time0_) {
    s += fmt::format("  ETA {}", hms(wall * (c_.total_time - sim_time) / (sim_time - time0_)));
  }
  return s;
}

bool Progress::update(int64_t step, double sim_time, const Phases& ph) {
  if (step0_ < 0) {
    step0_ = step;
    time0_ = sim_time;
    t0_ = last_ = std::chrono::steady_clock::now();
  }
  cur_step_ = step;
  if (c_.quiet || c_.rank != 0) return false;
  const auto now = std::chrono::steady_clock::now();
  bool due;
  if (c_.every_steps > 0)
    due = step != last_step_ && step % c_.every_steps == 0;
  else
    due = std::chrono::duration<double>(now - last_).count() >= c_.every_seconds;
  if (!due) return false;
  last_ = now;
  last_step_ = step;
  const std::string l = line(step, sim_time, ph);
  if (tty_)
    std::printf("\r\033[K%s", l.c_str());
  else
    std::printf("%s\n", l.c_str());
  std::fflush(stdout);
  return true;
}

void Progress::finish(int64_t step, double sim_time, const Phases& ph) {
  cur_step_ = step;
  if (c_.quiet || c_.rank != 0) return;
  const std::string l = line(step, sim_time, ph);
  if (tty_)
    std::printf("\r\033[K%s\n", l.c_str());
  else
    std::printf("%s\n", l.c_str());
  std::fflush(stdout);
}

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) TESSERA_THROW("cannot create '" + tmp + "': check that the output directory is writable");
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      TESSERA_THROW("write to '" + tmp + "' failed (disk full?)");
    }
    off += std::size_t(w);
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    TESSERA_THROW("cannot rename '" + tmp + "' to '" + path + "'");
  }
}

void PrometheusFile::gauge(const std::string& name, double v, const std::string& help, const std::string& labels) {
  m_.push_back({name, "gauge", help, labels, v});
}
void PrometheusFile::counter(const std::string& name, double v, const std::string& help, const std::string& labels) {
  TESSERA_REQUIRE(name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0,
                  "Prometheus counters end in _total: " + name);
  m_.push_back({name, "counter", help, labels, v});
}
void PrometheusFile::write() {
  std::string out;
  std::string last;
  for (const auto& m : m_) {
    if (m.name != last) {
      out += "# HELP " + m.name + " " + m.help + "\n# TYPE " + m.name + " " + m.type + "\n";
      last = m.name;
    }
    out += m.name + (m.labels.empty() ? "" : "{" + m.labels + "}") + " " + fmt::format("{:.17g}", m.v) + "\n";
  }
  write_file_atomic(path_, out);
  m_.clear();
}

}  // namespace tessera::telemetry
