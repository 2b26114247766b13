import { join } from 'node:path';
import { writeFileAtomic } from '@virnucpro/atomic-file';
import { readReportData, type ReportOptions } from './report-data.js';
import { REPORT_FILE, renderReportHtml, type ReportHtmlOptions } from './report-html.js';

/** Writes `report.html` into a finished run folder (atomically) from the files in it; returns its path. */
export async function writeReport(runDir: string, options: ReportOptions & ReportHtmlOptions = {}): Promise<string> {
  const html = renderReportHtml(await readReportData(runDir, options), options);
  const path = join(runDir, REPORT_FILE);
  await writeFileAtomic(path, html);
  return path;
}
