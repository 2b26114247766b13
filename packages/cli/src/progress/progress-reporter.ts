import cliProgress from 'cli-progress';

/** One pipeline stage being tracked (e.g. "embed", counting frames). */
export interface StageProgress {
  /** Adds `n` done units; `tokens` feeds the tokens/s rate. */
  tick(n: number, tokens?: number): void;
  /** Sets a total once it is known (streams often learn it late). */
  setTotal(total: number): void;
  finish(): void;
  /** Ends the stage without the `(done)` of `finish` (the work failed; the caller reports why). */
  abort(): void;
}

export interface ProgressReporter {
  stage(name: string, options?: StageOptions): StageProgress;
  /**
   * Says what happens while nothing can be counted yet (reading the input, loading the models): on a terminal a
   * line with the time it has taken so far, removed by `end()`; nothing in plain-line mode.
   */
  activity(text: string): { end(): void };
  /** A message line that must not be torn by a redraw. */
  log(message: string): void;
  close(): void;
}

export interface StageOptions {
  total?: number;
  unit?: string;
  /**
   * Seconds left as the caller measures them (predict: from batch timings after warm-up, see RunEstimate), or
   * undefined while unknown; without it the ETA is the units left at the rate since the stage began.
   */
  secondsLeft?: () => number | undefined;
}

export interface ReporterOptions {
  quiet?: boolean;
  stream?: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Force plain lines even on a TTY (tests) or bars on a non-TTY. */
  mode?: 'auto' | 'bars' | 'lines';
  /** Seconds between plain progress lines. */
  intervalSeconds?: number;
  now?: () => number;
}

/** Picks bars on an interactive stderr, periodic plain lines otherwise, nothing with --quiet. */
export function createProgressReporter(options: ReporterOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  if (options.quiet) return new QuietReporter();
  const isTty = Boolean((stream as NodeJS.WriteStream).isTTY);
  const mode = options.mode && options.mode !== 'auto' ? options.mode : isTty ? 'bars' : 'lines';
  return mode === 'bars' ? new BarReporter(stream as NodeJS.WriteStream) : new LineReporter(stream, options.intervalSeconds ?? 10, options.now ?? Date.now);
}

const NO_ACTIVITY = { end() {} };

class QuietReporter implements ProgressReporter {
  stage(): StageProgress {
    return { tick() {}, setTotal() {}, finish() {}, abort() {} };
  }
  activity(): { end(): void } {
    return NO_ACTIVITY;
  }
  log(): void {}
  close(): void {}
}

/** Shared rate/ETA arithmetic for both visible reporters. */
export class StageCounter {
  done = 0;
  tokens = 0;
  total?: number;
  readonly started: number;
  constructor(
    readonly name: string,
    readonly unit: string,
    private readonly now: () => number,
    total?: number,
    private readonly measuredSecondsLeft?: () => number | undefined,
  ) {
    this.started = now();
    this.total = total;
  }
  get seconds(): number {
    return Math.max((this.now() - this.started) / 1000, 1e-9);
  }
  /** Seconds left: the caller's measure if it has one, else at the rate so far; undefined until there is a rate. */
  get secondsLeft(): number | undefined {
    if (this.measuredSecondsLeft) return this.measuredSecondsLeft();
    const rate = this.done / this.seconds;
    if (this.total === undefined || !(rate > 0)) return undefined;
    return Math.max(0, this.total - this.done) / rate;
  }
  /** The ETA as shown: '?' until there is a rate (nothing done yet) or with no total. */
  get eta(): string {
    const left = this.secondsLeft;
    return left === undefined ? '?' : formatDuration(left);
  }
  describe(): string {
    const s = this.seconds;
    const rate = this.done / s;
    const parts = [`${this.name}: ${this.done}${this.total !== undefined ? `/${this.total}` : ''} ${this.unit}`];
    if (this.total) parts.push(`${((100 * this.done) / this.total).toFixed(1)}%`);
    parts.push(`${rate.toFixed(1)} ${this.unit}/s`);
    if (this.tokens) parts.push(`${Math.round(this.tokens / s)} tokens/s`);
    if (this.total && this.done < this.total && this.secondsLeft !== undefined) parts.push(`ETA ${this.eta}`);
    parts.push(`elapsed ${formatDuration(s)}`);
    return parts.join(', ');
  }
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(r).padStart(2, '0')}s` : `${r}s`;
}

class LineReporter implements ProgressReporter {
  constructor(private readonly stream: NodeJS.WritableStream, private readonly intervalSeconds: number, private readonly now: () => number) {}
  stage(name: string, options: StageOptions = {}): StageProgress {
    const counter = new StageCounter(name, options.unit ?? 'items', this.now, options.total, options.secondsLeft);
    let lastPrinted = counter.started;
    const write = (line: string) => this.stream.write(`${line}\n`);
    return {
      tick: (n, tokens = 0) => {
        counter.done += n;
        counter.tokens += tokens;
        if (this.now() - lastPrinted >= this.intervalSeconds * 1000) {
          lastPrinted = this.now();
          write(counter.describe());
        }
      },
      setTotal: (total) => {
        counter.total = total;
      },
      finish: () => write(`${counter.describe()} (done)`),
      abort: () => {},
    };
  }
  activity(): { end(): void } {
    return NO_ACTIVITY;
  }
  log(message: string): void {
    this.stream.write(`${message}\n`);
  }
  close(): void {}
}

/**
 * Bars while some stage runs. Once none runs, the bars are drawn a last time and released, so that a
 * message logged after them (the final `done:` line) is written straight away instead of waiting in
 * the bars' buffer for a redraw that never comes.
 */
class BarReporter implements ProgressReporter {
  private multi: cliProgress.MultiBar | null = null;
  private running = 0;
  /** Activity lines not ended yet (a failure can skip their end()): close() removes them. */
  private readonly activities = new Set<{ end(): void }>();
  constructor(private readonly stream: NodeJS.WriteStream) {}
  private bars(): cliProgress.MultiBar {
    this.multi ??= new cliProgress.MultiBar(
      {
        stream: this.stream,
        format: '{stage} |{bar}| {value}/{total} {unit} | {rate} {unit}/s | {tokenRate} tok/s | ETA {eta}',
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        etaBuffer: 50,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    return this.multi;
  }
  private stageEnded(): void {
    if (--this.running === 0) this.close();
  }
  stage(name: string, options: StageOptions = {}): StageProgress {
    const counter = new StageCounter(name, options.unit ?? 'items', Date.now, options.total, options.secondsLeft);
    const payload = () => ({
      stage: name.padEnd(10),
      unit: counter.unit,
      rate: (counter.done / counter.seconds).toFixed(1),
      tokenRate: Math.round(counter.tokens / counter.seconds),
      eta: counter.eta, // not cli-progress's eta_formatted, which shows 0s before there is a rate
    });
    const multi = this.bars();
    const bar = multi.create(options.total ?? 0, 0, payload());
    this.running++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.stageEnded();
    };
    return {
      tick: (n, tokens = 0) => {
        counter.done += n;
        counter.tokens += tokens;
        if (counter.total === undefined || counter.done > counter.total) bar.setTotal(counter.done);
        bar.update(counter.done, payload());
      },
      setTotal: (total) => {
        counter.total = total;
        bar.setTotal(total);
      },
      finish: () => {
        if (counter.total === undefined) bar.setTotal(counter.done);
        bar.update(counter.done, payload());
        bar.stop();
        end();
      },
      abort: () => {
        bar.stop();
        multi.remove(bar);
        end();
      },
    };
  }
  activity(text: string): { end(): void } {
    const multi = this.bars();
    const line = multi.create(0, 0, { text }, { format: '{text}… {duration_formatted}' });
    this.running++;
    let ended = false;
    const activity = {
      end: () => {
        if (ended) return;
        ended = true;
        this.activities.delete(activity);
        line.stop();
        multi.remove(line); // also clears its line from the terminal
        this.stageEnded();
      },
    };
    this.activities.add(activity);
    return activity;
  }
  log(message: string): void {
    if (this.multi) this.multi.log(`${message}\n`);
    else this.stream.write(`${message}\n`);
  }
  close(): void {
    for (const activity of [...this.activities]) activity.end();
    // A redraw first: messages logged since the last one are written only by a redraw.
    this.multi?.update();
    this.multi?.stop();
    this.multi = null;
  }
}
