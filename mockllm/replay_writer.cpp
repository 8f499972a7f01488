#include "mockllm/replay_writer.h"

namespace llmconform::mockllm {

using Clock = std::chrono::steady_clock;

Clock::time_point Later(Clock::time_point from, double ms) {
  const double room =
      std::chrono::duration<double, std::milli>(Clock::time_point::max() - from).count() / 2;
  if (!(ms < room)) ms = room;
  if (!(ms > 0)) return from;
  return from +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

ReplayWriter::ReplayWriter(const ResponsePlan& plan, std::shared_ptr<const void> keep, double speed,
                           bool piecewise, Metrics& metrics, std::uint64_t seq,
                           std::function<void(ReplayEnd)> end)
    : plan_(plan),
      keep_(std::move(keep)),
      pieces_(speed == 0 && !piecewise ? plan.burst : plan.pieces),
      speed_(speed),
      metrics_(metrics),
      seq_(seq),
      end_(std::move(end)) {}

PacedStep ReplayWriter::Next() {
  const Clock::time_point now = Clock::now();
  if (unsent_ > 0) metrics_.BytesSent(std::exchange(unsent_, 0));
  switch (phase_) {
    case Phase::kDelay:
      phase_ = Phase::kHead;
      if (plan_.delay_ms > 0) {
        return {.kind = PacedStep::Kind::kWait,
                .due = Later(now, static_cast<double>(plan_.delay_ms))};
      }
      [[fallthrough]];
    case Phase::kHead:
      if (!plan_.chunked && plan_.content_length == 0) {
        // Empty: the stalls too come before the head, which leaves with the end.
        while (next_ < plan_.pieces.size()) {
          const std::int64_t stall = plan_.pieces[next_++].stall_ms_before;
          if (stall > 0)
            return {.kind = PacedStep::Kind::kWait, .due = Later(now, static_cast<double>(stall))};
        }
        phase_ = Phase::kDone;
        end_(plan_.cut ? ReplayEnd::kCut : ReplayEnd::kComplete);
        return {.kind = PacedStep::Kind::kEnd};
      }
      phase_ = Phase::kPieces;
      return {.kind = PacedStep::Kind::kHead};
    case Phase::kPieces:
      return PieceStep(now);
    case Phase::kDone:
      break;
  }
  return {.kind = PacedStep::Kind::kEnd};
}

PacedStep ReplayWriter::PieceStep(Clock::time_point now) {
  if (!started_) {
    // The head has left: the pieces' times count from here.
    started_ = true;
    metrics_.FirstByte(seq_);
    start_ = now;
  }
  while (next_ < pieces_.size()) {
    const Piece& p = pieces_[next_];
    if (speed_ > 0 && !due_waited_) {
      due_waited_ = true;
      const Clock::time_point due = Later(start_, static_cast<double>(p.at_ms) * speed_);
      if (due > now) return {.kind = PacedStep::Kind::kWait, .due = due};
    }
    if (p.stall_ms_before > 0 && !stall_waited_) {
      stall_waited_ = true;
      const double stall = static_cast<double>(p.stall_ms_before);
      start_ = Later(start_, stall);
      return {.kind = PacedStep::Kind::kWait, .due = Later(now, stall)};
    }
    ++next_;
    due_waited_ = stall_waited_ = false;
    if (!p.bytes.empty()) {
      if (!anchored_ && speed_ > 0) {
        const Clock::time_point due = Later(start_, static_cast<double>(p.at_ms) * speed_);
        if (now > due) start_ += now - due;
      }
      anchored_ = true;
      unsent_ = p.bytes.size();
      return {.kind = PacedStep::Kind::kPiece, .bytes = p.bytes};
    }
  }
  return EndStep();
}

PacedStep ReplayWriter::EndStep() {
  phase_ = Phase::kDone;
  if (plan_.cut) {
    end_(ReplayEnd::kCut);
    return {.kind = PacedStep::Kind::kCut};
  }
  end_(ReplayEnd::kComplete);
  return {.kind = PacedStep::Kind::kEnd};
}

void ReplayWriter::Abandoned() {
  unsent_ = 0;  // the piece written last did not leave whole
  end_(ReplayEnd::kAbandoned);
}

}  // namespace llmconform::mockllm
