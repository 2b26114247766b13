import { join } from 'node:path';
import { writeFileAtomic } from '@virnucpro/atomic-file';
import { readReportData, type ReportData, type ReportOptions } from './report-data.js';
import { REPORT_FILE, renderReportHtml, type ReportHtmlOptions } from './report-html.js';

/** Writes `report.html` into a finished run folder (atomically) from the files in it; returns its path. */
export async function writeReport(runDir: string, options: ReportOptions & ReportHtmlOptions = {}): Promise<string> {
  return writeReportData(runDir, await readReportData(runDir, options), options);
}

/** Writes `report.html` into `runDir` (atomically) from data gathered already (a ReportCollector's); returns its path. */
export async function writeReportData(runDir: string, data: ReportData, options: ReportHtmlOptions = {}): Promise<string> {
  const path = join(runDir, REPORT_FILE);
  await writeFileAtomic(path, renderReportHtml(data, options));
  return path;
}
