// A replay's timed answer (a delay, stalls, a cut, pieces on their recorded
// times) as a paced body that mockllm's listener writes from its event loop
// (HttpResponse::Paced): no thread waits for it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mockllm/http_message.h"
#include "mockllm/metrics.h"
#include "mockllm/replay_plan.h"

namespace llmconform::mockllm {

// How a replay ended, told once: its last byte was handed to the socket
// (complete), a cut fault ended it, or the listener gave up on it (a write
// failed, the client reset, the server stopped).
enum class ReplayEnd { kComplete, kCut, kAbandoned };

// `from` + `ms`, saturated: a recorded time of 10^12 ms at --speed 10, or
// stalls added up, never overflow the clock.
std::chrono::steady_clock::time_point Later(std::chrono::steady_clock::time_point from, double ms);

// Writes `plan` as ReplayServer's worker did before: the plan's delay before
// the head (which leaves alone); then each piece (`plan.burst` at speed 0
// without piecewise, else `plan.pieces`) at the start plus its recorded time
// times `speed` (speed 0: at once), after its stall, which pushes the later
// times back; the first piece written late (an event loop busy with other
// streams) pushes them back by its lateness too, so that the intervals after
// it are the recorded ones, while a later piece written late does not (no
// drift); then the end or, for a cut plan, the cut. A sized empty body
// waits out its delay and stalls before its head. `end` is told how it ended
// before the last step leaves (a client that has read everything finds the
// outcome set) and again, kAbandoned, if that step then fails.
class ReplayWriter final : public PacedBody {
 public:
  // `plan` lives as long as `keep`; `metrics` outlives the writer.
  ReplayWriter(const ResponsePlan& plan, std::shared_ptr<const void> keep, double speed,
               bool piecewise, Metrics& metrics, std::uint64_t seq,
               std::function<void(ReplayEnd)> end);

  PacedStep Next() override;
  void Abandoned() override;

 private:
  enum class Phase { kDelay, kHead, kPieces, kDone };
  PacedStep PieceStep(std::chrono::steady_clock::time_point now);
  PacedStep EndStep();

  const ResponsePlan& plan_;
  std::shared_ptr<const void> keep_;
  const std::vector<Piece>& pieces_;
  double speed_;
  Metrics& metrics_;
  std::uint64_t seq_;
  std::function<void(ReplayEnd)> end_;
  Phase phase_ = Phase::kDelay;
  std::size_t next_ = 0;       // the next piece
  bool due_waited_ = false;    // the next piece's recorded time was waited for
  bool stall_waited_ = false;  // …and its stall
  bool started_ = false;       // the head has left
  bool anchored_ = false;      // a piece with bytes has been written
  std::size_t unsent_ = 0;     // bytes of the piece written last, counted once it has left
  std::chrono::steady_clock::time_point start_;  // what the pieces' times count from
};

}  // namespace llmconform::mockllm
