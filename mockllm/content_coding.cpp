#include "mockllm/content_coding.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <zlib.h>

#include <vector>

#include "base/format.h"
#include "mockllm/redaction.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

DecodeError Bad(std::string message) { return {DecodeError::Kind::kBadData, std::move(message)}; }

std::expected<std::string, DecodeError> Inflate(std::string_view bytes, int window_bits,
                                                std::size_t max_out) {
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) return std::unexpected(Bad("zlib cannot start"));
  std::string out;
  std::vector<unsigned char> buf(64 * 1024);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = buf.data();
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = zs.msg ? zs.msg : (rc == Z_BUF_ERROR ? "truncated data" : "bad data");
      inflateEnd(&zs);
      return std::unexpected(Bad(why));
    }
    out.append(reinterpret_cast<const char*>(buf.data()), buf.size() - zs.avail_out);
    if (out.size() > max_out) {
      inflateEnd(&zs);
      return std::unexpected(DecodeError{DecodeError::Kind::kTooLarge,
                                         Format("decodes to more than {} bytes", max_out)});
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return std::unexpected(Bad("truncated data"));
    }
  }
  inflateEnd(&zs);
  return out;
}

std::expected<std::string, DecodeError> Unbrotli(std::string_view bytes, std::size_t max_out) {
  BrotliDecoderState* st = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (!st) return std::unexpected(Bad("brotli cannot start"));
  std::string out;
  std::vector<std::uint8_t> buf(64 * 1024);
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(bytes.data());
  std::size_t avail_in = bytes.size();
  for (;;) {
    std::uint8_t* next_out = buf.data();
    std::size_t avail_out = buf.size();
    const BrotliDecoderResult r =
        BrotliDecoderDecompressStream(st, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    out.append(reinterpret_cast<const char*>(buf.data()), buf.size() - avail_out);
    if (out.size() > max_out) {
      BrotliDecoderDestroyInstance(st);
      return std::unexpected(DecodeError{DecodeError::Kind::kTooLarge,
                                         Format("decodes to more than {} bytes", max_out)});
    }
    if (r == BROTLI_DECODER_RESULT_SUCCESS) break;
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
    const std::string why = r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT
                                ? "truncated data"
                                : BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st));
    BrotliDecoderDestroyInstance(st);
    return std::unexpected(Bad("not brotli data: " + why));
  }
  const bool trailing = avail_in != 0;
  BrotliDecoderDestroyInstance(st);
  if (trailing) return std::unexpected(Bad("bytes after the end of the brotli data"));
  return out;
}

}  // namespace

std::expected<std::string, DecodeError> DecodeContent(std::string_view coding,
                                                      std::string_view bytes, std::size_t max_out) {
  const std::string c = Lower(std::string(coding));
  if (c == "identity" || c.empty()) return std::string(bytes);
  if (c == "gzip" || c == "x-gzip") {
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
        static_cast<unsigned char>(bytes[1]) != 0x8b)
      return std::unexpected(Bad("not gzip data (no gzip magic number)"));
    return Inflate(bytes, 16 + MAX_WBITS, max_out);
  }
  if (c == "deflate") return Inflate(bytes, MAX_WBITS, max_out);
  if (c == "br") return Unbrotli(bytes, max_out);
  return std::unexpected(Bad(Format("unknown content coding \"{}\"", coding)));
}

std::string GzipForTest(std::string_view bytes) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string BrotliForTest(std::string_view bytes) {
  std::size_t n = BrotliEncoderMaxCompressedSize(bytes.size()) + 16;
  std::string out(n, '\0');
  BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                        bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()), &n,
                        reinterpret_cast<std::uint8_t*>(out.data()));
  out.resize(n);
  return out;
}

}  // namespace llmconform::mockllm
