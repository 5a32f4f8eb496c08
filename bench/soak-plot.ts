import type { LatencyWindow, SoakSample } from './soak-run';
import type { Trend } from './trend';

/** What the plot draws: the samples, the p99 windows, the warm-up, and the fitted RSS lines. */
export interface SoakPlotInput {
  title: string;
  samples: readonly SoakSample[];
  windows: readonly LatencyWindow[];
  warmupSeconds: number;
  seconds: number;
  trends: { apiRss: Trend; workerRss: Trend };
}

const WIDTH = 900;
const LEFT = 70;
const RIGHT = 170;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const MEMORY = { top: 50, height: 300 };
const LATENCY = { top: 420, height: 150 };
const HEIGHT = LATENCY.top + LATENCY.height + 50;
const COLOURS = { api: '#1f77b4', worker: '#d62728', p99: '#2ca02c', p50: '#7f7f7f' };

/** A round step giving about `count` ticks over `span`: 1, 2 or 5 times a power of ten. */
function tickStep(span: number, count: number): number {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One panel's axes: a y range with ticks and grid lines, and the shared x axis in minutes. */
function panel(
  top: number,
  height: number,
  maxY: number,
  yLabel: string,
  seconds: number,
  warmupSeconds: number,
): { svg: string; x: (s: number) => number; y: (v: number) => number } {
  const yStep = tickStep(maxY, 5);
  const yMax = Math.ceil(maxY / yStep) * yStep;
  const x = (s: number) => LEFT + (s / seconds) * PLOT_WIDTH;
  const y = (v: number) => top + height - (v / yMax) * height;
  const parts = [`<rect x="${LEFT}" y="${top}" width="${x(warmupSeconds) - LEFT}" height="${height}" fill="#f0f0f0"/>`];
  for (let v = 0; v <= yMax + 1e-9; v += yStep) {
    parts.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_WIDTH}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end">${+v.toFixed(2)}</text>`);
  }
  const minutes = seconds / 60;
  const xStep = tickStep(minutes, 10);
  for (let m = 0; m <= minutes + 1e-9; m += xStep) {
    parts.push(`<line x1="${x(m * 60)}" x2="${x(m * 60)}" y1="${top + height}" y2="${top + height + 4}" stroke="#333"/>`);
    parts.push(`<text x="${x(m * 60)}" y="${top + height + 18}" text-anchor="middle">${+m.toFixed(2)}</text>`);
  }
  parts.push(`<rect x="${LEFT}" y="${top}" width="${PLOT_WIDTH}" height="${height}" fill="none" stroke="#333"/>`);
  parts.push(`<text transform="translate(${LEFT - 48} ${top + height / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`);
  parts.push(
    `<text x="${LEFT + PLOT_WIDTH / 2}" y="${top + height + 36}" text-anchor="middle">minutes since the traffic started (grey: warm-up, left out of the trends)</text>`,
  );
  return { svg: parts.join('\n'), x, y };
}

function polyline(points: Array<[number, number]>, colour: string, dashed = false, width = 2): string {
  const path = points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
  return `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="${width}"${dashed ? ' stroke-dasharray="6 4"' : ''}/>`;
}

function legend(top: number, entries: Array<{ label: string; colour: string; dashed?: boolean }>): string {
  return entries
    .map((entry, i) => {
      const y = top + 10 + i * 20;
      return `${polyline(
        [
          [LEFT + PLOT_WIDTH + 12, y],
          [LEFT + PLOT_WIDTH + 40, y],
        ],
        entry.colour,
        entry.dashed,
      )}<text x="${LEFT + PLOT_WIDTH + 46}" y="${y + 4}">${escapeXml(entry.label)}</text>`;
    })
    .join('\n');
}

/**
 * Draws the soak as an SVG: memory (resident and heap used, API and worker) over time with the fitted resident
 * lines after the warm-up, and below it p50 and p99 latency per window. Plain SVG, no script, no fonts to fetch.
 */
export function soakSvg(input: SoakPlotInput): string {
  const { samples, windows, seconds, warmupSeconds, trends } = input;
  const maxMemory = Math.max(...samples.flatMap((s) => [s.api.rssMb, s.worker.rssMb])) * 1.1;
  const memory = panel(MEMORY.top, MEMORY.height, maxMemory, 'MB', seconds, warmupSeconds);
  const line = (pick: (s: SoakSample) => number, colour: string, dashed = false) =>
    polyline(
      samples.map((s) => [memory.x(s.t), memory.y(pick(s))]),
      colour,
      dashed,
    );
  const fitted = (trend: Trend, colour: string) =>
    polyline(
      [warmupSeconds, seconds].map((t) => [memory.x(t), memory.y(trend.intercept + (trend.slope * t) / 60)] as [number, number]),
      colour,
      true,
      1,
    );
  const maxLatency = Math.max(1, ...windows.map((w) => w.p99Ms)) * 1.15;
  const latency = panel(LATENCY.top, LATENCY.height, maxLatency, 'ms', seconds, warmupSeconds);
  const mid = (w: LatencyWindow) => latency.x((w.fromS + w.toS) / 2);
  const slope = (trend: Trend) => `${trend.slope >= 0 ? '+' : ''}${trend.slope.toFixed(2)} MB/min`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(input.title)}</text>`,
    `<text x="${LEFT}" y="40">Memory from each process's /metrics; RSS trend after warm-up: API ${slope(trends.apiRss)}, worker ${slope(trends.workerRss)}</text>`,
    memory.svg,
    line((s) => s.api.rssMb, COLOURS.api),
    line((s) => s.api.heapUsedMb, COLOURS.api, true),
    line((s) => s.worker.rssMb, COLOURS.worker),
    line((s) => s.worker.heapUsedMb, COLOURS.worker, true),
    fitted(trends.apiRss, '#000'),
    fitted(trends.workerRss, '#000'),
    legend(MEMORY.top, [
      { label: 'API resident', colour: COLOURS.api },
      { label: 'API heap used', colour: COLOURS.api, dashed: true },
      { label: 'worker resident', colour: COLOURS.worker },
      { label: 'worker heap used', colour: COLOURS.worker, dashed: true },
      { label: 'least-squares fit', colour: '#000', dashed: true },
    ]),
    `<text x="${LEFT}" y="${LATENCY.top - 12}">Latency of the answers ending in each window (every request of the mix)</text>`,
    latency.svg,
    polyline(
      windows.map((w) => [mid(w), latency.y(w.p99Ms)]),
      COLOURS.p99,
    ),
    polyline(
      windows.map((w) => [mid(w), latency.y(w.p50Ms)]),
      COLOURS.p50,
    ),
    ...windows.map((w) => `<circle cx="${mid(w).toFixed(1)}" cy="${latency.y(w.p99Ms).toFixed(1)}" r="3" fill="${COLOURS.p99}"/>`),
    legend(LATENCY.top, [
      { label: 'p99', colour: COLOURS.p99 },
      { label: 'p50', colour: COLOURS.p50 },
    ]),
    '</svg>',
    '',
  ].join('\n');
}
