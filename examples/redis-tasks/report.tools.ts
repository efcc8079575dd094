import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Field, McpContext, Tool } from 'mcpkit';

export const REGIONS = ['north', 'south', 'east', 'west'] as const;

/** How the report tool behaves in this process. */
export class ReportSettings {
  constructor(
    /** Time spent on each month of a report: a stand-in for the real work (queries, an external API). */
    readonly stepMs: number,
    /** Which instance this is, written into each report so you can see where the work ran. */
    readonly instance: string,
  ) {}
}

export class ReportInput {
  @Field('Sales region') @IsIn(REGIONS) region!: (typeof REGIONS)[number];
  @Field('How many months back') @IsInt() @Min(1) @Max(36) months!: number;
}

export class Report {
  @IsString() region!: string;
  @IsInt() months!: number;
  @IsInt() totalSales!: number;
  @IsString() computedBy!: string;
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    });
  });

@injectable()
export class ReportTools {
  constructor(@inject(ReportSettings) private readonly settings: ReportSettings) {}

  /**
   * Too slow for one request: `taskSupport: 'required'` makes every call a task. The client gets a task
   * id at once; the work runs in the background on this instance, its status and result live in Redis,
   * so `tasks/get`, `tasks/result` and `tasks/cancel` may go to any instance.
   */
  @Tool({
    description: 'Builds a sales report for a region, one month at a time (runs as a task)',
    input: ReportInput,
    output: Report,
    taskSupport: 'required',
    annotations: { readOnlyHint: true },
  })
  async salesReport(input: ReportInput, ctx: McpContext): Promise<Report> {
    let totalSales = 0;
    for (let month = 1; month <= input.months; month++) {
      await pause(this.settings.stepMs, ctx.signal); // tasks/cancel, from any instance, aborts this
      totalSales += 1000 * (REGIONS.indexOf(input.region) + 1) + 10 * month;
      await ctx.progress(month, input.months, `month ${month} of ${input.months}`);
    }
    return { region: input.region, months: input.months, totalSales, computedBy: this.settings.instance };
  }
}
