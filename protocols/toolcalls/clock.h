// Time for the audit log and the engine's durations, behind an interface so
// that tests and golden files see fixed times.
#pragma once

#include <chrono>
#include <string>

namespace llmconform::toolcalls {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, for timestamps.
  virtual std::chrono::system_clock::time_point Now() = 0;
  // A monotonic time, for durations.
  virtual std::chrono::steady_clock::time_point Monotonic() = 0;
};

class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point Now() override { return std::chrono::system_clock::now(); }
  std::chrono::steady_clock::time_point Monotonic() override {
    return std::chrono::steady_clock::now();
  }
};

// Starts at `start` and moves only when told, by Advance() or by `step` on
// every Monotonic() call (so each measured duration is `step`).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(
      std::chrono::system_clock::time_point start = std::chrono::system_clock::time_point{},
      std::chrono::milliseconds step = std::chrono::milliseconds{0})
      : now_(start), step_(step) {}
  std::chrono::system_clock::time_point Now() override { return now_; }
  std::chrono::steady_clock::time_point Monotonic() override {
    const auto t = mono_;
    mono_ += step_;
    now_ += step_;
    return t;
  }
  void Advance(std::chrono::milliseconds d) {
    now_ += d;
    mono_ += d;
  }

 private:
  std::chrono::system_clock::time_point now_;
  std::chrono::steady_clock::time_point mono_{};
  std::chrono::milliseconds step_;
};

// "2025-12-25T00:00:00.000Z".
std::string Iso8601Utc(std::chrono::system_clock::time_point t);

}  // namespace llmconform::toolcalls
