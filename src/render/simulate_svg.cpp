// SPDX-License-Identifier: Apache-2.0
// `migplan simulate --plot`: the fleet's use over time per policy as one
// self-contained SVG, written by hand (no plotting library): a step line per
// policy, rejections marked on it, time and use axes, a legend.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quote.hpp"
#include "render/simulate.hpp"
#include "render/svg.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

// The picture, in pixels: the plot area and the room around it for the
// title, the axes' labels and the legend.
constexpr int chart_width = 960;
constexpr int chart_height = 480;
constexpr int chart_left = 72;
constexpr int chart_right = 200;
constexpr int chart_top = 40;
constexpr int chart_bottom = 56;
constexpr int plot_w = chart_width - chart_left - chart_right;
constexpr int plot_h = chart_height - chart_top - chart_bottom;
constexpr int mark_px = 6;  // width of a rejection's x

// One colour and dash per policy (six policies at most), told apart in grey too.
constexpr std::string_view colors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                       "#9467bd", "#ff7f0e", "#17becf"};
constexpr std::string_view dashes[] = {"", "6 3", "2 2", "8 3 2 3", "4 4", "1 3"};
// A mixed fleet's line per model and policy: thin, in the policy's colour,
// one dash per model.
constexpr std::string_view model_dashes[] = {"3 2", "1 2", "6 2 1 2", "8 2", "2 4"};

// A step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over `range`.
double nice_step(double range, int ticks) {
  const double raw = range / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

// A number without a trailing ".0".
std::string number(double v) {
  return v == std::floor(v) ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{:g}", v);
}

struct point {
  double x, y;
};

// The levels of the plotted metric in each of `buckets` (the fleet's or a
// model's).
template <class Bucket>
std::vector<replay_series::level> levels_of(std::span<const Bucket> buckets, plot_metric metric) {
  std::vector<replay_series::level> out;
  out.reserve(buckets.size());
  for (const Bucket& b : buckets) out.push_back(metric == plot_metric::slices ? b.slices : b.gpus);
  return out;
}

// The polyline of a series (`levels`, one per bucket of `s`): from 0 at the
// trace's start, per bucket a vertical run from the value it starts with
// over its highest and lowest (where they lie outside the run) to its last
// value, then level to the next bucket. Points that lie on a straight run
// between their neighbours are left out; the highest and lowest of each
// bucket never are.
std::vector<point> step_line(const replay_series& s, std::span<const replay_series::level> levels) {
  std::vector<point> pts;
  const auto add = [&](double x, double y) {
    if (!pts.empty() && pts.back().x == x && pts.back().y == y) return;
    if (pts.size() >= 2) {
      const point a = pts[pts.size() - 2];
      const point b = pts.back();
      const bool level = a.y == b.y && b.y == y;
      const bool between =
          a.x == b.x && b.x == x && std::min(a.y, y) <= b.y && b.y <= std::max(a.y, y);
      if (level || between) {
        pts.back() = {x, y};
        return;
      }
    }
    pts.push_back({x, y});
  };
  const auto span = static_cast<double>(s.end() - s.start());
  double last = 0;
  add(0, 0);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const replay_series::level& l = levels[i];
    const double x = std::min(span, static_cast<double>(i) * static_cast<double>(s.width()));
    add(x, last);
    if (l.high > std::max<double>(last, l.last)) add(x, l.high);
    if (l.low < std::min<double>(last, l.last)) add(x, l.low);
    add(x, l.last);
    last = l.last;
  }
  add(span, last);
  return pts;
}

// The unit the time axis counts in, for a trace of `span` seconds.
struct time_unit {
  double seconds;
  std::string_view suffix;
  std::string_view name;
};
time_unit unit_for(std::int64_t span) {
  if (span >= 2 * 86400) return {86400, "d", "days"};
  if (span >= 2 * 3600) return {3600, "h", "hours"};
  if (span >= 2 * 60) return {60, "m", "minutes"};
  return {1, "s", "seconds"};
}

// A mixed fleet: policy k's line per fleet model (thin, in the policy's
// colour, the model's dash), titled with the model and its peak.
template <class Px, class Py>
void model_lines(std::ostream& os, const simulate_result& r, std::size_t k, const Px& px,
                 const Py& py) {
  const simulate_policy& p = r.policies[k];
  for (std::size_t m = 0; m < p.series->models() && m < r.fleet_models.size(); ++m) {
    const std::vector<replay_series::level> levels =
        levels_of(p.series->model_buckets(m), r.metric);
    int peak = 0;
    for (const replay_series::level& l : levels) peak = std::max(peak, l.high);
    const std::string_view slug = r.fleet_models[m].gpu->slug;
    os << fmt::format(
        "<polyline class=\"model\" data-policy=\"{}\" data-model=\"{}\" fill=\"none\" "
        "stroke=\"{}\" stroke-width=\"1\" stroke-opacity=\"0.8\" stroke-dasharray=\"{}\" "
        "stroke-linejoin=\"round\" points=\"",
        xml_text(p.name), xml_text(slug), colors[k % std::size(colors)],
        model_dashes[m % std::size(model_dashes)]);
    bool first = true;
    for (const point& q : step_line(*p.series, levels)) {
      os << (first ? "" : " ") << fmt::format("{:.6g},{:.6g}", px(q.x), py(q.y));
      first = false;
    }
    os << fmt::format("\"><title>{} on {}: {} {} at the peak</title></polyline>\n",
                      xml_text(p.name), xml_text(slug), peak,
                      r.metric == plot_metric::slices ? "compute slices" : "GPUs");
  }
}

// A mixed fleet's models in the legend, below the policies: each model's
// dash, in grey, and its name.
void model_legend(std::ostream& os, const simulate_result& r) {
  bool any = false;
  for (const simulate_policy& p : r.policies) any = any || (p.series && p.series->models() > 0);
  if (!any) return;
  const int x = chart_left + plot_w + 16;
  int y = chart_top + 8 + static_cast<int>(r.policies.size()) * 36;
  os << fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555555\">per model:</text>\n", x, y + 4);
  for (std::size_t m = 0; m < r.fleet_models.size(); ++m) {
    y += 20;
    os << fmt::format(
        "<line class=\"model\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555555\" "
        "stroke-width=\"1\" stroke-dasharray=\"{}\"/>\n",
        x, y, x + 24, y, model_dashes[m % std::size(model_dashes)]);
    os << fmt::format("<text x=\"{}\" y=\"{}\" data-model=\"{}\">{} ({} GPUs)</text>\n", x + 30,
                      y + 4, xml_text(r.fleet_models[m].gpu->slug),
                      xml_text(r.fleet_models[m].gpu->slug), r.fleet_models[m].gpus);
  }
}

}  // namespace

void simulate_svg(std::ostream& os, const simulate_result& r) {
  const bool slices = r.metric == plot_metric::slices;
  const replay_series* any = nullptr;
  for (const simulate_policy& p : r.policies)
    if (p.series) any = &*p.series;
  const std::int64_t span =
      any != nullptr ? std::max<std::int64_t>(any->end() - any->start(), 1) : 1;
  int capacity = r.gpus;
  if (slices) {
    capacity = 0;
    for (const simulate_fleet_model& m : r.fleet_models) capacity += m.gpus * m.gpu->compute_slices;
  }
  int highest = 0;
  for (const simulate_policy& p : r.policies)
    if (p.series)
      for (const replay_series::bucket& b : p.series->buckets())
        highest = std::max(highest, slices ? b.slices.high : b.gpus.high);
  // The y axis reaches the fleet's capacity, a whole step above it.
  const double ystep = nice_step(std::max(capacity, std::max(highest, 1)), 6);
  const double ymax = std::ceil(std::max(capacity, std::max(highest, 1)) / ystep) * ystep;
  const double sx = plot_w / static_cast<double>(span);
  const double sy = plot_h / ymax;
  const double x0 = chart_left;
  const double y0 = chart_top + plot_h;
  const auto px = [&](double t) { return x0 + t * sx; };
  const auto py = [&](double v) { return y0 - v * sy; };
  const std::string what = slices ? "compute slices in use" : "GPUs in use";

  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      chart_width, chart_height);
  std::string title = fmt::format("migplan simulate: {} on {} {} GPU{}", r.trace, r.gpus,
                                  r.gpu->slug, plural(r.gpus));
  if (r.fleet_models.size() > 1) {
    std::string each;
    for (const simulate_fleet_model& m : r.fleet_models)
      each += fmt::format("{}{} {}", each.empty() ? "" : ", ", m.gpus, m.gpu->slug);
    title = fmt::format("migplan simulate: {} on {} GPUs ({})", r.trace, r.gpus, each);
  }
  os << fmt::format("<title>{}</title>\n", xml_text(title));
  // Under a queue a pod that does not fit waits: the only pods turned away
  // are those no empty fleet could hold, refused on arrival, and what the
  // reader wants beside them is how many still wait at the end.
  const bool queued = r.pending != pending_rule::reject;
  const std::string_view turned_away = queued ? "refused" : "rejected";
  os << fmt::format("<desc>{} over time per policy; x marks pods {}</desc>\n", what, turned_away);
  os << fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", chart_width,
                    chart_height);
  os << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\">{}</text>\n", chart_left,
                    chart_top - 16, xml_text(title));

  // Grid and axes.
  os << "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double v = ystep; v <= ymax + ystep / 2; v += ystep)
    os << fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/>\n", chart_left,
                      py(v), chart_left + plot_w, py(v));
  os << "</g>\n";
  const time_unit unit = unit_for(span);
  const double tstep =
      std::max(1.0, nice_step(static_cast<double>(span) / unit.seconds, 8)) * unit.seconds;
  os << "<g class=\"axes\" stroke=\"#444444\" stroke-width=\"1\">\n";
  os << fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", chart_left, y0,
                    chart_left + plot_w);
  os << fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", chart_left, chart_top,
                    y0);
  for (double t = 0; t <= static_cast<double>(span); t += tstep)
    os << fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>\n", px(t), y0,
                      y0 + 4);
  for (double v = 0; v <= ymax + ystep / 2; v += ystep)
    os << fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>\n",
                      chart_left - 4, py(v), chart_left);
  os << "</g>\n";
  os << "<g class=\"labels\" fill=\"#222222\">\n";
  for (double t = 0; t <= static_cast<double>(span); t += tstep)
    os << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", px(t),
                      y0 + 18, number(t / unit.seconds), unit.suffix);
  for (double v = 0; v <= ymax + ystep / 2; v += ystep)
    os << fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", chart_left - 8,
                      py(v) + 4, number(v));
  os << fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} since the trace's start</text>\n",
      chart_left + plot_w / 2, chart_height - 12, unit.name);
  os << fmt::format(
      "<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      chart_top + plot_h / 2, what);
  os << "</g>\n";
  // The fleet's capacity, dashed.
  os << fmt::format(
      "<line class=\"capacity\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" "
      "stroke=\"#888888\" stroke-dasharray=\"2 4\"><title>capacity: {3}</title></line>\n",
      chart_left, py(capacity), chart_left + plot_w, capacity);

  // The series in pixels (a scaling transform would scale the strokes too
  // wherever vector-effect is not known, as in librsvg), with the scale for
  // a reader: value = (data-y0 - y) / data-y-scale, seconds since the start
  // = (x - data-x0) / data-x-scale.
  os << fmt::format(
      "<g class=\"series\" data-x0=\"{}\" data-y0=\"{}\" data-x-scale=\"{:.9g}\" "
      "data-y-scale=\"{:.9g}\">\n",
      chart_left, y0, sx, sy);
  for (std::size_t k = 0; k < r.policies.size(); ++k) {
    const simulate_policy& p = r.policies[k];
    if (!p.series) continue;
    os << fmt::format(
        "<polyline class=\"policy\" data-policy=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"1.5\" stroke-linejoin=\"round\"",
        xml_text(p.name), colors[k % std::size(colors)]);
    if (!dashes[k % std::size(dashes)].empty())
      os << fmt::format(" stroke-dasharray=\"{}\"", dashes[k % std::size(dashes)]);
    os << " points=\"";
    bool first = true;
    for (const point& q : step_line(*p.series, levels_of(p.series->buckets(), r.metric))) {
      os << (first ? "" : " ") << fmt::format("{:.6g},{:.6g}", px(q.x), py(q.y));
      first = false;
    }
    os << "\"/>\n";
    model_lines(os, r, k, px, py);
  }
  os << "</g>\n";

  // GPUs in use: each policy's time-weighted mean over the trace, dotted
  // across the plot in its colour (the peak is its line's highest step).
  if (!slices) {
    os << "<g class=\"means\" stroke-width=\"1\" stroke-dasharray=\"1 3\">\n";
    for (std::size_t k = 0; k < r.policies.size(); ++k) {
      const simulate_policy& p = r.policies[k];
      if (!p.series) continue;
      os << fmt::format(
          "<line class=\"mean\" data-policy=\"{0}\" data-mean=\"{1}\" x1=\"{2}\" y1=\"{3:.2f}\" "
          "x2=\"{4}\" y2=\"{3:.2f}\" stroke=\"{5}\"><title>{0}: {6:.1f} GPUs in use on average "
          "over the trace, {7} at the peak</title></line>\n",
          xml_text(p.name), p.rates.mean_gpus_active, chart_left, py(p.rates.mean_gpus_active),
          chart_left + plot_w, colors[k % std::size(colors)], p.rates.mean_gpus_active,
          p.metrics.peak_gpus_in_use);
    }
    os << "</g>\n";
  }

  // Rejections: an x, as wide as a few buckets are, over the buckets it
  // stands for, at their highest use, with the count and times in a tooltip.
  // One mark per bucket would overlap its neighbours and make a long
  // trace's file large for nothing.
  for (std::size_t k = 0; k < r.policies.size(); ++k) {
    const simulate_policy& p = r.policies[k];
    if (!p.series) continue;
    os << fmt::format(
        "<g class=\"rejections\" data-policy=\"{}\" stroke=\"{}\" stroke-width=\"1.5\">\n",
        xml_text(p.name), colors[k % std::size(colors)]);
    const replay_series& s = *p.series;
    const std::size_t n = s.buckets().size();
    const auto group = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::ceil(static_cast<double>(n) * mark_px / plot_w)));
    for (std::size_t from = 0; from < n; from += group) {
      std::int64_t count = 0;
      std::size_t first = n, last = 0;
      int high = 0;
      for (std::size_t i = from; i < std::min(n, from + group); ++i) {
        const replay_series::bucket& b = s.buckets()[i];
        if (b.rejected == 0) continue;
        count += b.rejected;
        first = std::min(first, i);
        last = i;
        high = std::max(high, slices ? b.slices.high : b.gpus.high);
      }
      if (count == 0) continue;
      const std::int64_t since = static_cast<std::int64_t>(first) * s.width();
      const std::int64_t until = static_cast<std::int64_t>(last + 1) * s.width() - 1;
      const std::string when = since == until ? fmt::format("+{}", span_text(since))
                                              : fmt::format("+{} to +{}", span_text(since),
                                                            span_text(std::min(until, span)));
      os << fmt::format(
          "<path class=\"reject\" data-count=\"{}\" d=\"M{:.1f} {:.1f}l6 6m-6 0l6 -6\">"
          "<title>{}: {} {} at {}</title></path>\n",
          count, px(static_cast<double>(std::min(since, span))) - 3, py(high) - 3, xml_text(p.name),
          count, turned_away, when);
    }
    os << "</g>\n";
  }

  // Legend: the policy, its line, its rejections (queued: refusals and pods
  // pending at the end); on a mixed fleet, then each model's dash.
  os << "<g class=\"legend\">\n";
  for (std::size_t k = 0; k < r.policies.size(); ++k) {
    const simulate_policy& p = r.policies[k];
    if (!p.series) continue;
    const int y = chart_top + 8 + static_cast<int>(k) * 36;
    const int x = chart_left + plot_w + 16;
    os << fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"", x, y,
        x + 24, y, colors[k % std::size(colors)]);
    if (!dashes[k % std::size(dashes)].empty())
      os << fmt::format(" stroke-dasharray=\"{}\"", dashes[k % std::size(dashes)]);
    os << "/>\n";
    os << fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", x + 30, y + 4, xml_text(p.name));
    const std::string tally = queued ? fmt::format("{} refused, {} pending",
                                                   p.metrics.pods_rejected, p.metrics.pods_pending)
                                     : fmt::format("{} rejected", p.metrics.pods_rejected);
    os << fmt::format("<text class=\"tally\" x=\"{}\" y=\"{}\" fill=\"#555555\">{}</text>\n",
                      x + 30, y + 20, tally);
  }
  model_legend(os, r);
  os << "</g>\n</svg>\n";
}

}  // namespace migplan::cli::render
