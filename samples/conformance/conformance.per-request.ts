import { IsString } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { EmptyInput, Field, MCP_APPLICATION, McpApplication, McpContext, McpError, McpHeader, Prompt, Tool, userMessage } from '../../src';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RegionInput {
  @Field('The region to run in; mirrored into the Mcp-Param-Region header')
  @McpHeader('Region')
  @IsString()
  region!: string;
}

/** Reads a text field of an accepted elicitation; anything else is the client's mistake. */
function accepted(answer: { action: string; content?: Record<string, unknown> }, field: string): string {
  const value = answer.content?.[field];
  if (answer.action !== 'accept' || typeof value !== 'string')
    throw McpError.invalidParams(`Invalid params: expected an accepted answer with a string "${field}"`);
  return value;
}

const nameForm = { type: 'object' as const, properties: { name: { type: 'string' } }, required: ['name'] };

/** The JSON Schema 2020-12 features the json-schema-2020-12 scenario looks for, served verbatim. */
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/**
 * The fixtures of the 2026-07-28 scenarios: requests to the client written with ctx.elicit / sample /
 * roots and stable keys (multi round-trip input requests for a 2026-07-28 client, real requests in a
 * 2025-11-25 session), list changes at runtime, and a parameter mirrored into an HTTP header.
 */
@injectable()
export class PerRequestConformanceTools {
  constructor(@inject(MCP_APPLICATION) private readonly app: McpApplication) {}

  @Tool({ description: 'Needs the client to support sampling' })
  async test_missing_capability(_: EmptyInput, ctx: McpContext) {
    const result = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 },
      { key: 'hello' },
    );
    return `Sampled: ${JSON.stringify(result.content)}`;
  }

  @Tool({ description: 'Asks the user to confirm, as an input request on the response stream' })
  async test_streaming_elicitation(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit(
      {
        message: 'Please confirm to continue',
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
      },
      { key: 'confirmation' },
    );
    return `Elicitation ${answer.action}`;
  }

  @Tool({ description: 'Logs while it runs (only to a client that chose a log level)' })
  async test_logging_tool(_: EmptyInput, ctx: McpContext) {
    await ctx.log.info('Logging tool started');
    await pause(20);
    await ctx.log.info('Logging tool finished');
    return 'Logging tool executed';
  }

  @Tool({ description: 'Changes the tool list (hides and shows a tool): list_changed goes to subscribers' })
  test_trigger_tool_change(_: EmptyInput) {
    // Hidden and shown again at once: subscribers hear of two changes, tools/list never sees a difference.
    this.app.disable('tool', 'test_trigger_tool_change');
    this.app.enable('tool', 'test_trigger_tool_change');
    return 'The tool list changed';
  }

  @Tool({ description: 'Changes the prompt list (hides and shows a prompt): list_changed goes to subscribers' })
  test_trigger_prompt_change(_: EmptyInput) {
    this.app.disable('prompt', 'test_simple_prompt');
    this.app.enable('prompt', 'test_simple_prompt');
    return 'The prompt list changed';
  }

  @Tool({ description: 'Asks for the user name (input request user_name)' })
  async test_input_required_result_elicitation(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'user_name' });
    return `Hello, ${accepted(answer, 'name')}!`;
  }

  @Tool({ description: 'Asks the client to sample an LLM (input request capital_question)' })
  async test_input_required_result_sampling(_: EmptyInput, ctx: McpContext) {
    const result = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    );
    const content = result.content as { type?: string; text?: string };
    return `The model said: ${content.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  @Tool({ description: "Lists the client's roots (input request client_roots)" })
  async test_input_required_result_list_roots(_: EmptyInput, ctx: McpContext) {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Roots: ${roots.map((r) => `${r.name ?? ''} <${r.uri}>`).join(', ') || '(none)'}`;
  }

  @Tool({ description: 'Asks for a confirmation, carried in requestState (input request confirm)' })
  async test_input_required_result_request_state(_: EmptyInput, ctx: McpContext) {
    const started = await ctx.once('started', () => new Date().toISOString());
    const answer = await ctx.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    return `state-ok: action=${answer.action}, ok=${String(answer.content?.ok)}, started=${started}`;
  }

  @Tool({ description: 'Asks for a name, a greeting and the roots in one round' })
  async test_input_required_result_multiple_inputs(_: EmptyInput, ctx: McpContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'user_name' }),
      ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Write a short greeting.' } }], maxTokens: 50 },
        { key: 'greeting' },
      ),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const text = (greeting.content as { text?: string }).text ?? '';
    return `${text} ${accepted(name, 'name')} (${roots.length} root(s))`;
  }

  @Tool({ description: 'Asks for a name, then for a colour (two rounds)' })
  async test_input_required_result_multi_round(_: EmptyInput, ctx: McpContext) {
    const name = accepted(await ctx.elicit({ message: 'Step 1: What is your name?', requestedSchema: nameForm }, { key: 'step1' }), 'name');
    const color = accepted(
      await ctx.elicit(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        },
        { key: 'step2' },
      ),
      'color',
    );
    return `${name} likes ${color}`;
  }

  @Tool({ description: 'Asks for a confirmation; a tampered requestState is refused' })
  async test_input_required_result_tampered_state(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    return `Confirmed: ${answer.action}`;
  }

  @Tool({ description: 'Asks only what the client declared it can answer (sampling, elicitation, roots)' })
  async test_input_required_result_capabilities(_: EmptyInput, ctx: McpContext) {
    const caps = ctx.session.clientCapabilities;
    const asked: Promise<string>[] = [];
    if (caps.sampling) {
      asked.push(
        ctx
          .sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }], maxTokens: 20 }, { key: 'sampled' })
          .then((r) => `sampling: ${(r.content as { text?: string }).text ?? ''}`),
      );
    }
    if (caps.elicitation)
      asked.push(
        ctx
          .elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'elicited' })
          .then((r) => `elicitation: ${r.action}`),
      );
    if (caps.roots) asked.push(ctx.roots({ key: 'roots' }).then((r) => `roots: ${r.length}`));
    const answers = await Promise.all(asked);
    return answers.length ? answers.join('; ') : 'The client can answer no input request';
  }

  @Tool({ description: 'Echoes its region, which clients mirror into the Mcp-Param-Region header' })
  test_custom_headers(input: RegionInput) {
    return `Region: ${input.region}`;
  }

  @Tool({ description: 'Tool with JSON Schema 2020-12 features', inputSchema: SCHEMA_2020_12 })
  json_schema_2020_12_tool(args: Record<string, unknown>) {
    return `Received ${JSON.stringify(args)}`;
  }

  @Tool({ description: 'A job that runs only as a task and ends with an error result', taskSupport: 'required' })
  async failing_job(_: EmptyInput, ctx: McpContext) {
    await pause(1_000);
    if (ctx.signal.aborted) return { isError: true, content: [{ type: 'text' as const, text: 'Cancelled' }] };
    return { isError: true, content: [{ type: 'text' as const, text: 'The job failed' }] };
  }

  @Prompt({ description: 'A prompt that asks the user for context first (input request user_context)' })
  async test_input_required_result_prompt(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { key: 'user_context' },
    );
    return [userMessage(`Use this context: ${accepted(answer, 'context')}`)];
  }
}
