#include "mockllm/journal.h"

namespace mockllm {

std::uint64_t Journal::Append(nlohmann::json entry) {
  std::lock_guard lock(mu_);
  const std::uint64_t seq = next_seq_++;
  entry["seq"] = seq;
  if (entries_.empty()) first_seq_ = seq;
  entries_.push_back(std::move(entry));
  while (entries_.size() > limit_) {
    entries_.pop_front();
    ++first_seq_;
    ++dropped_;
  }
  return seq;
}

void Journal::Amend(std::uint64_t seq, const std::function<void(nlohmann::json&)>& edit) {
  std::lock_guard lock(mu_);
  if (entries_.empty() || seq < first_seq_ || seq - first_seq_ >= entries_.size()) return;
  edit(entries_[seq - first_seq_]);
}

nlohmann::json Journal::Entries() const {
  std::lock_guard lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries_) out.push_back(e);
  return out;
}

void Journal::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
  first_seq_ = next_seq_;
}

std::uint64_t Journal::total() const {
  std::lock_guard lock(mu_);
  return next_seq_ - 1;
}

std::uint64_t Journal::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace mockllm
