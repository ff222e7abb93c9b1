// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading what `nvidia-smi mig` lists: GPU-instance profiles (-lgip), their
// possible placements (-lgipp), GPU instances (-lgi), compute instances (-lci)
// and compute-instance profiles (-lcip). Column widths differ between drivers
// (a 6-character memory value shifts the columns after it; newer drivers print
// wider tables), so rows are split on white space and read by the table's own
// structure: the +---+ frames, the | borders, the title line and the column
// heading. One listing may hold several GPUs. Lines starting with '#' are
// skipped (nvidia-smi never prints them; data/captures heads its files with
// them), and a text marked "# complete: no" (a partial capture or a fragment)
// may lack its column heading, its closing frame or the second line of its last
// row: what is missing is said in `notes` instead of failing.
//
// Every error and note is a diagnostic with the 1-based line of the text (0
// for the text as a whole) and no file: the caller, who knows the file, names
// it (in_file()) and prints it (to_text()). Messages name the culprit through
// clip_token(). The readers never throw and do work linear in the size of the
// text, which is bounded by max_smi_bytes.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostic.hpp"
#include "error.hpp"

namespace migplan::cli::smi {

/// The most bytes a reader takes (a 16-GPU -lgip listing is about 40 KB).
inline constexpr std::size_t max_smi_bytes = std::size_t{1} << 20;
/// The most rows a listing may hold (16 GPUs x 16 instances is 256).
inline constexpr std::size_t max_smi_rows = 4096;
/// Placement units a start:size may cover: 0 to 15 (migplan's max_units).
inline constexpr int smi_units = 16;

/// What a reader answers: a value, or the diagnostic that refuses the text.
template <class T>
using read_result = result<T, diagnostic>;

/// The five listings.
enum class listing_kind { unknown, lgip, lgipp, lgi, lci, lcip };

/// The option that prints a listing: "-lgip", ..., "" for unknown.
std::string_view listing_option(listing_kind kind) noexcept;

/// Which listing `text` is, by its table title ("GPU instances:"), by its first
/// line for -lgipp ("GPU  0 Profile ID 19 Placements: ..."), by the message
/// nvidia-smi prints for an empty one ("No GPU instances found: Not Found"),
/// or, for a fragment without a title, by the shape of its first row. Unknown
/// when none of these says (also for "No MIG-enabled devices found.", which
/// any of the five may print). Looks at the first 256 lines at most.
listing_kind detect_listing(std::string_view text);

/// A listing told by its table alone: the first thing in `text`, after blank
/// lines, '#' lines and nvidia-smi's "Successfully ..." lines, is a frame
/// (+---+) and then a title ("| GPU instances: |"), or a -lgipp line ("GPU  0
/// Profile ID 19 Placements: ..."). Narrower than detect_listing, which also
/// takes a fragment's rows and the messages of an empty listing: for a file
/// given to a command that reads no listing. Looks at the first 256 lines at most.
struct framed_listing {
  listing_kind kind = listing_kind::unknown;
  int line = 0;    ///< the title's line, or the -lgipp line's
  int column = 0;  ///< where that line's text starts (1-based)
};
std::optional<framed_listing> find_framed_listing(std::string_view text);

/// A start and a size in placement units (compute slices for a compute instance).
struct placement {
  int start = 0;
  int size = 0;
  friend bool operator==(const placement&, const placement&) = default;
};

/// The P2P, SM and engine columns of a -lgip or -lcip row, as the table heads
/// them. Columns the table does not have are empty; so are the second-line
/// columns of a row cut off in a partial capture.
struct row_columns {
  std::optional<bool> p2p;  ///< "Yes" / "No"
  std::optional<int> sm, dec, enc, ce, jpeg, ofa;
  /// Columns this reader does not know (a future driver's), as headed and printed.
  std::vector<std::pair<std::string, std::string>> other;
};

/// What every listing says besides its rows.
struct listing_base {
  std::vector<int> gpus;      ///< GPU indices in order of first appearance
  bool complete = true;       ///< false when the text is marked "# complete: no"
  bool mig_disabled = false;  ///< nvidia-smi said "No MIG-enabled devices found."
  /// What a partial capture lacks, lines skipped and why nothing is listed,
  /// each a note at its line; empty for a whole listing of rows.
  std::vector<diagnostic> notes;
};

/// A -lgip row: one GPU-instance profile of one GPU.
struct lgip_row {
  int line = 0;  ///< line of the row's first line
  int gpu = 0;
  std::string name;         ///< without "MIG ": "1g.24gb+me.all"
  std::string suffix;       ///< the attributes after the size: "+me", "+gfx", "-me", "+me.all", ""
  int id = 0;               ///< profile ID
  int free = 0;             ///< instances that can still be created
  int total = 0;            ///< instance cap on an empty GPU
  std::string memory_gib;   ///< "Memory GiB" as printed: "4.75"
  int memory_gib_x100 = 0;  ///< the same x 100: 475
  row_columns columns;
};

/// `nvidia-smi mig -lgip`.
struct lgip_listing : listing_base {
  std::vector<lgip_row> rows;
};

/// A -lgipp line: where one profile of one GPU may start. nvidia-smi prints
/// the profile ID only ("GPU  0 Profile ID  5 Placement : {0}:4").
struct lgipp_row {
  int line = 0;
  int gpu = 0;
  int id = 0;                         ///< profile ID
  std::vector<placement> placements;  ///< one per start, in printed order, all of one size
};

/// `nvidia-smi mig -lgipp`.
struct lgipp_listing : listing_base {
  std::vector<lgipp_row> rows;
};

/// A -lgi row: one GPU instance.
struct lgi_row {
  int line = 0;
  int gpu = 0;
  std::string name;  ///< without "MIG "
  int profile_id = 0;
  int instance_id = 0;
  placement at;  ///< placement units
};

/// `nvidia-smi mig -lgi`: no two instances of one GPU overlap or share an ID.
struct lgi_listing : listing_base {
  std::vector<lgi_row> rows;
};

/// A -lci row: one compute instance.
struct lci_row {
  int line = 0;
  int gpu = 0;
  int gi_id = 0;                ///< the GPU instance it belongs to
  std::string name;             ///< compute-instance profile name without "MIG ": "1c.3g.20gb"
  int profile_id = 0;           ///< compute-instance profile ID
  int ci_id = 0;                ///< compute instance ID
  std::optional<placement> at;  ///< compute slices within the GI; older drivers omit the column
};

/// `nvidia-smi mig -lci`: no two compute instances of one GPU instance
/// overlap (where placed) or share an ID.
struct lci_listing : listing_base {
  std::vector<lci_row> rows;
};

/// A -lcip row: one compute-instance profile of one GPU instance.
struct lcip_row {
  int line = 0;
  int gpu = 0;
  int gi_id = 0;
  std::string name;  ///< without "MIG "
  int profile_id = 0;
  bool is_default = false;  ///< printed with '*' after the ID: the GI's default CI profile
  int free = 0;
  int total = 0;
  row_columns columns;  ///< SM (exclusive), DEC ENC OFA CE JPEG (shared)
};

/// `nvidia-smi mig -lcip`.
struct lcip_listing : listing_base {
  std::vector<lcip_row> rows;
};

/// Reads `nvidia-smi mig -lgip` output. Profiles repeated on one GPU, and more
/// free instances than total, are errors.
read_result<lgip_listing> read_lgip(std::string_view text);

/// Reads `nvidia-smi mig -lgipp` output ("Placements: {0,2,4}:2", and
/// "Placement : {0}:8" for a single start). Starts must be 0-15 and start +
/// size at most 16; a profile repeated on one GPU is an error.
read_result<lgipp_listing> read_lgipp(std::string_view text);

/// Reads `nvidia-smi mig -lgi` output. Instances of one GPU that overlap or
/// share an instance ID are errors naming both.
read_result<lgi_listing> read_lgi(std::string_view text);

/// Reads `nvidia-smi mig -lci` output, with or without the Placement column.
/// Compute instances of one GPU instance that overlap or share an ID are
/// errors naming both.
read_result<lci_listing> read_lci(std::string_view text);

/// Reads `nvidia-smi mig -lcip` output.
read_result<lcip_listing> read_lcip(std::string_view text);

}  // namespace migplan::cli::smi
