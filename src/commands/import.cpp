// SPDX-License-Identifier: Apache-2.0
// `migplan import`: a model file from an `nvidia-smi mig -lgip` and an
// `-lgipp` capture, so that a GPU migplan does not know yet can be planned on
// with --gpu-file. The model gets exactly the checks --gpu-file gives it: the
// JSON written is read back through the model-file reader before it is
// written out.

#include "render/import.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <migplan/catalog.hpp>
#include <optional>
#include <ostream>

#include "app.hpp"
#include "error.hpp"
#include "io/import.hpp"
#include "io/model_file.hpp"
#include "io/names.hpp"
#include "io/smi.hpp"
#include "io/source.hpp"
#include "models.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

struct import_options {
  std::string lgip, lgipp;
  std::optional<std::string> name, description;
  std::vector<std::string> pci_ids;
  std::optional<int> index;
  std::string output;
};

result<capture_text> read_capture(const std::string& path, std::istream& in,
                                  smi::listing_kind want) {
  capture_text c;
  c.shown = path == "-" ? "<stdin>" : path;
  c.name = path == "-" ? "<stdin>" : std::filesystem::path(path).filename().string();
  bool too_large = false;
  auto text = read_source_bounded(path, in, smi::max_smi_bytes, too_large);
  if (!text)
    return error{too_large ? fmt::format("{}: {}, the most an nvidia-smi listing may be", c.shown,
                                         text.error().message)
                           : fmt::format("cannot read {}: {}", quote_token(c.shown, 200),
                                         text.error().message)};
  c.text = std::move(*text);
  // The two files given the other way round get a message that says so.
  const smi::listing_kind kind = smi::detect_listing(c.text);
  if (kind != smi::listing_kind::unknown && kind != want)
    return error{fmt::format("{} is nvidia-smi mig {} output; {} takes nvidia-smi mig {} output",
                             c.shown, smi::listing_option(kind),
                             want == smi::listing_kind::lgip ? "--lgip" : "--lgipp",
                             smi::listing_option(want))};
  return c;
}

int run_import(const import_options& o, context& ctx) {
  const auto bad = [&](const error& e) {
    report_bad_input(ctx, e);
    return exit_bad_input;
  };
  if (o.lgip == "-" && o.lgipp == "-")
    return bad("--lgip and --lgipp cannot both read standard input ('-')");
  import_settings settings;
  settings.index = o.index;
  if (o.name) {
    if (o.name->empty()) return bad("--name is empty: give the slug --gpu is to take");
    settings.slug = *o.name;
  }
  if (o.description) {
    if (o.description->empty()) return bad("--description is empty");
    settings.description = *o.description;
  }
  for (const std::string& text : o.pci_ids) {
    std::uint32_t id = 0;
    if (!parse_pci_id(text, id))
      return bad(
          fmt::format("--pci-id {} is not a PCI device ID: write 0xDEVICE10DE (0x20B010DE) "
                      "or the device part alone (0x20B0)",
                      quote_token(text)));
    settings.pci_ids.push_back({id, false});
  }
  auto lgip = read_capture(o.lgip, ctx.in, smi::listing_kind::lgip);
  if (!lgip) return bad(lgip.error());
  auto lgipp = read_capture(o.lgipp, ctx.in, smi::listing_kind::lgipp);
  if (!lgipp) return bad(lgipp.error());

  auto spec = import_model(*lgip, *lgipp, settings);
  if (!spec) return bad(spec.error());
  if (const auto problem = check_model_spec(*spec, ctx.models->models()))
    return bad(fmt::format("the model of {} and {} cannot be used: {}", lgip->shown, lgipp->shown,
                           problem->message));
  // The built-in model the capture is of, if any, says which profiles its driver should list.
  if (const gpu_model* known = catalog_model_of(*spec, catalog()))
    for (const std::string& w :
         driver_floor_warnings(*spec, capture_driver(lgip->text), *known, lgip->shown))
      report(ctx, severity::warning, w);
  const std::string json = render::model_json(*spec);
  // What --gpu-file will do with it, done now: a model that does not read
  // back is never written.
  if (auto back = parse_model_file(json, "the imported model", ctx.models->models()); !back)
    return bad("internal error: " + back.error().message);

  return write_output(ctx, o.output, json);
}

}  // namespace

void add_import(CLI::App& app, context& ctx) {
  auto o = std::make_shared<import_options>();
  CLI::App* cmd = app.add_subcommand("import", "Write a model file from nvidia-smi mig output");
  cmd->add_option("--lgip", o->lgip, "'nvidia-smi mig -lgip' output ('-': stdin)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--lgipp", o->lgipp, "'nvidia-smi mig -lgipp' output ('-': stdin)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--name", o->name, "Slug --gpu will take (default imported-...)")
      ->type_name("SLUG");
  cmd->add_option("--description", o->description, "Description of the model (prose)")
      ->type_name("TEXT");
  cmd->add_option("--pci-id", o->pci_ids, "PCI device ID (0x20B010DE), repeatable")
      ->type_name("ID")
      ->allow_extra_args(false);
  add_whole_number(
      *cmd, "--index", 0, 4095, [o](int n) { o->index = n; },
      "The GPU of listings that hold several");
  cmd->add_option("-o,--output", o->output, "Write to FILE instead of stdout")->type_name("FILE");
  cmd->footer(
      "Example: migplan import --lgip lgip.txt --lgipp lgipp.txt -o my-gpu.json\n"
      "Exit codes: 0 written, 2 bad input.");
  cmd->callback([o, &ctx] { ctx.code = run_import(*o, ctx); });
}

}  // namespace migplan::cli
