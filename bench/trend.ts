/** A straight line fitted by least squares, with the standard error of its slope. */
export interface Trend {
  /** Change of y per unit of x. */
  slope: number;
  intercept: number;
  /** Standard error of the slope (NaN with fewer than three points): the slope is known to about ±2 of these. */
  slopeStdErr: number;
  points: number;
}

/** Fits y = intercept + slope · x to the points by ordinary least squares. */
export function leastSquares(points: ReadonlyArray<{ x: number; y: number }>): Trend {
  const n = points.length;
  if (n < 2) return { slope: NaN, intercept: NaN, slopeStdErr: NaN, points: n };
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  const sxy = points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0);
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  const residuals = points.reduce((sum, p) => sum + (p.y - intercept - slope * p.x) ** 2, 0);
  const slopeStdErr = n > 2 ? Math.sqrt(residuals / (n - 2) / sxx) : NaN;
  return { slope, intercept, slopeStdErr, points: n };
}
