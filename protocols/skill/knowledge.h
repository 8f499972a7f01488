// The server context of the system prompt (seed 000 §3.2): the project's
// ai_system_promt.md (the seed's spelling), read where the session runs.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace llmconform::skill {

class KnowledgeSource {
 public:
  virtual ~KnowledgeSource() = default;
  // The context text, "" when there is none. Never fails: a missing or
  // unreadable file, or one that takes too long, means no context.
  virtual std::string Read() = 0;
};

// Reads `<working_dir>/.kosmos-panel/ai_system_promt.md`, else
// `<home>/.config/kosmos-panel/ai_system_promt.md`: the first that exists as a
// regular file wins, even when empty. Opened non-blocking (a FIFO in its
// place does not hang); reading stops at `limit` (seed: 5 s) and then yields
// "". The text is returned trimmed. `home` "" means no second place.
class LocalKnowledgeSource : public KnowledgeSource {
 public:
  LocalKnowledgeSource(std::filesystem::path working_dir, std::filesystem::path home,
                       std::chrono::milliseconds limit = std::chrono::seconds(5));
  std::string Read() override;

 private:
  std::filesystem::path working_dir_;
  std::filesystem::path home_;
  std::chrono::milliseconds limit_;
};

// A fixed text (scenarios, tests).
class FixedKnowledgeSource : public KnowledgeSource {
 public:
  explicit FixedKnowledgeSource(std::string text) : text_(std::move(text)) {}
  std::string Read() override { return text_; }

 private:
  std::string text_;
};

}  // namespace llmconform::skill
