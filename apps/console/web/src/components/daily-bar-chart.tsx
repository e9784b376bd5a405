import { useId } from 'react';

export interface BarSeries {
  label: string;
  /** One value per day, in the order of `days`. */
  values: number[];
  /** A class for the series' colour (the stylesheet defines .series-0, .series-1, ...). */
  className?: string;
}

/** A round upper bound for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/**
 * Stacked bars per day, drawn as plain SVG from figures the service computed (nothing summed here
 * but a day's own stack). The SVG is one labelled image whose description says the totals; each bar
 * carries its day's figures as a tooltip; the page shows the same figures as a table beside it.
 */
export function DailyBarChart({ title, days, series, unit }: { title: string; days: string[]; series: BarSeries[]; unit: string }) {
  const titleId = useId();
  const descId = useId();
  const width = 720;
  const height = 200;
  const left = 40;
  const bottom = 24;
  const plotWidth = width - left - 8;
  const plotHeight = height - bottom - 8;
  const stackTotals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...stackTotals));
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (v: number) => 8 + plotHeight - (v / max) * plotHeight;
  const totals = series.map((s) => `${s.label}: ${s.values.reduce((a, b) => a + b, 0)} ${unit}`).join('; ');
  const busiest = stackTotals.indexOf(Math.max(...stackTotals));
  return (
    <figure className="daily-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${titleId} ${descId}`} preserveAspectRatio="xMidYMid meet">
        <title id={titleId}>{title}</title>
        <desc id={descId}>
          {days.length > 0 ? `From ${days[0]} to ${days.at(-1)} (UTC days). ${totals}.` : 'No days.'}
          {busiest >= 0 && (stackTotals[busiest] ?? 0) > 0 ? ` Busiest day ${days[busiest]} with ${stackTotals[busiest]} ${unit}.` : ''}
        </desc>
        {[0, max / 2, max].filter((v) => Number.isInteger(v)).map((v) => (
          <g key={v} className="axis">
            <line x1={left} x2={width - 8} y1={y(v)} y2={y(v)} />
            <text x={left - 6} y={y(v) + 4} textAnchor="end">
              {v}
            </text>
          </g>
        ))}
        {days.map((day, i) => {
          let base = 0;
          const x = left + i * slot + (slot - barWidth) / 2;
          return (
            <g key={day}>
              <title>{`${day}: ${series.map((s) => `${s.label} ${s.values[i] ?? 0}`).join(', ')}`}</title>
              {series.map((s, k) => {
                const v = s.values[i] ?? 0;
                const top = y(base + v);
                const rect = v > 0 ? <rect key={s.label} className={s.className ?? `series-${k}`} x={x} y={top} width={barWidth} height={y(base) - top} /> : null;
                base += v;
                return rect;
              })}
              {(i === 0 || i === days.length - 1 || (days.length > 10 && i % 7 === 0 && days.length - 1 - i >= 4)) && (
                <text className="axis-label" x={x + barWidth / 2} y={height - 6} textAnchor="middle">
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="daily-legend">
        {series.map((s, k) => (
          <span key={s.label}>
            <svg width="12" height="12" aria-hidden="true">
              <rect className={s.className ?? `series-${k}`} width="12" height="12" />
            </svg>{' '}
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
