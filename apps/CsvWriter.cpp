#include "apps/CsvWriter.hpp"

#include <cassert>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace talus::app {

CsvWriter::CsvWriter(const std::filesystem::path& file, const std::vector<std::string>& columns)
    : path_(file), out_(file, std::ios::out | std::ios::trunc), columns_(columns.size()) {
  if (!out_) throw std::runtime_error("cannot write " + file.string());
  for (std::size_t i = 0; i < columns.size(); ++i) out_ << (i ? "," : "") << columns[i];
  out_ << '\n';
}

void CsvWriter::append(std::span<const double> row) {
  assert(row.size() == columns_);
  line_.clear();
  char buf[32];
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) line_ += ',';
    if (std::isnan(row[i])) {
      line_ += "nan";
      continue;
    }
    const auto r = std::to_chars(buf, buf + sizeof buf, row[i]);
    line_.append(buf, r.ptr);
  }
  line_ += '\n';
  out_ << line_;
}

void CsvWriter::flush() {
  out_.flush();
  if (!out_) throw std::runtime_error("write error on " + path_.string());
}

void CsvWriter::close() {
  if (!out_.is_open()) return;
  flush();
  out_.close();
}

}  // namespace talus::app
