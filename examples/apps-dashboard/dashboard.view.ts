import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNumber, IsString, Matches, ValidateNested } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { EmptyInput, Field, Tool, ToolError, View } from 'mcpkit';
import { type Health, ServiceMonitor } from './service-monitor';

export class ServiceStatus {
  @IsString() name!: string;
  @IsIn(['up', 'degraded', 'down']) health!: Health;
  @IsInt() p95Ms!: number;
  @IsNumber() errorRate!: number;
  @IsInt() restarts!: number;
}

/** What the view draws: the tools' `structuredContent`, checked against this class; its JSON is the text fallback. */
export class DashboardData {
  @IsString() summary!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => ServiceStatus) services!: ServiceStatus[];
}

export class RestartInput {
  @Field('Name of the service to restart') @IsString() @Matches(/^[a-z][a-z0-9-]*$/) name!: string;
}

/**
 * The view's script uses ext-apps' `App` (the view side of MCP Apps). The package ships a
 * self-contained ES module; its closing `export { … }` becomes `const ExtApps = { … }` so the bundle
 * can be pasted into the view's inline module script: the view then loads nothing from the network
 * and needs no CSP domains.
 */
function extAppsInline(): string {
  const bundle = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const exports = /export\s*\{([^}]*)\};?\s*$/.exec(bundle);
  if (!exports) throw new Error('@modelcontextprotocol/ext-apps/app-with-deps no longer ends with an export list');
  const members = exports[1].split(',').map((spec) => {
    const [local, exported = local] = spec.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}: ${local}`;
  });
  return `${bundle.slice(0, exports.index)}\nconst ExtApps = { ${members.join(', ')} };\n`.replace(/<\/script/gi, '<\\/script');
}

/** dashboard.html (beside this file) with the ext-apps bundle in place of its `/* ext-apps *\/` line. */
function dashboardHtml(): string {
  const html = readFileSync(join(__dirname, 'dashboard.html'), 'utf8');
  return html.replace('/* ext-apps */', () => extAppsInline());
}

@View({
  uri: 'ui://service-health/dashboard',
  html: dashboardHtml,
  title: 'Service health',
  description: 'Each service as a card, coloured by health, with a Restart button where one is down',
  prefersBorder: true,
})
export class DashboardView {}

@injectable()
export class DashboardTools {
  constructor(@inject(ServiceMonitor) private readonly monitor: ServiceMonitor) {}

  @Tool({
    title: 'Service health',
    description: 'Shows the health of every service (an interactive dashboard where the host supports MCP Apps)',
    input: EmptyInput,
    output: DashboardData,
    ui: DashboardView,
    annotations: { readOnlyHint: true },
  })
  showDashboard(_: EmptyInput): DashboardData {
    return this.data();
  }

  @Tool({
    description: 'Restarts a service; returns the dashboard',
    input: RestartInput,
    output: DashboardData,
    ui: { view: DashboardView, visibility: ['app'] },
    annotations: { destructiveHint: false, idempotentHint: true },
  })
  restartService(input: RestartInput): DashboardData {
    if (!this.monitor.restart(input.name)) throw new ToolError(`No service is called "${input.name}"`);
    return this.data();
  }

  private data(): DashboardData {
    const services = this.monitor.list();
    const unhealthy = services.filter((s) => s.health !== 'up').map((s) => `${s.name} ${s.health}`);
    const summary =
      unhealthy.length === 0
        ? `All ${services.length} services up`
        : `${unhealthy.length} of ${services.length} need attention: ${unhealthy.join(', ')}`;
    return { summary, services };
  }
}
