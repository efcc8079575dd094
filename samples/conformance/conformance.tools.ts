import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, embeddedResource, Field, image, audio, McpContext, text, Tool, ToolError } from '../../src';
import { RED_PIXEL_PNG, SILENT_WAV } from './media';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SamplingInput {
  @Field('The prompt to send to the LLM') @IsString() prompt!: string;
}

export class ElicitationInput {
  @Field('The message to show the user') @IsString() message!: string;
}

/** The SEP-1034 form: one default per primitive type. */
export class DefaultsForm {
  @Field({ description: 'Your name', default: 'John Doe' }) @IsString() name!: string;
  @Field({ description: 'Your age', default: 30 }) @IsInt() age!: number;
  @Field({ description: 'Your score', default: 95.5 }) @IsNumber() score!: number;
  @Field({ description: 'Account status', default: 'active' }) @IsIn(['active', 'inactive', 'pending']) status!: string;
  @Field({ description: 'Verified?', default: true }) @IsBoolean() verified!: boolean;
}

/** The SEP-1330 form: every enum variant. */
export class EnumsForm {
  @Field('Untitled single-select') @IsIn(['option1', 'option2', 'option3']) untitledSingle!: string;

  @Field({ description: 'Titled single-select', enumNames: ['First Option', 'Second Option', 'Third Option'] })
  @IsIn(['value1', 'value2', 'value3'])
  titledSingle!: string;

  @Field({ description: 'Legacy titled enum', enumNames: ['Option One', 'Option Two', 'Option Three'], enumStyle: 'legacy' })
  @IsOptional()
  @IsIn(['opt1', 'opt2', 'opt3'])
  legacyEnum?: string;

  @Field('Untitled multi-select') @IsArray() @IsIn(['option1', 'option2', 'option3'], { each: true }) untitledMulti!: string[];

  @Field({ description: 'Titled multi-select', enumNames: ['First Choice', 'Second Choice', 'Third Choice'] })
  @IsArray()
  @IsIn(['value1', 'value2', 'value3'], { each: true })
  titledMulti!: string[];
}

/** The tools the official conformance suite calls, written as an mcpkit user would write them. */
@injectable()
export class ConformanceTools {
  @Tool({ description: 'Returns simple text' })
  test_simple_text(_: EmptyInput) {
    return 'This is a simple text response for testing.';
  }

  @Tool({ description: 'Returns an image' })
  test_image_content(_: EmptyInput) {
    return image(RED_PIXEL_PNG, 'image/png');
  }

  @Tool({ description: 'Returns audio' })
  test_audio_content(_: EmptyInput) {
    return audio(SILENT_WAV, 'audio/wav');
  }

  @Tool({ description: 'Returns an embedded resource' })
  test_embedded_resource(_: EmptyInput) {
    return embeddedResource('test://embedded-resource', 'This is an embedded resource content.', 'text/plain');
  }

  @Tool({ description: 'Returns text, an image and a resource' })
  test_multiple_content_types(_: EmptyInput) {
    return [
      text('Multiple content types test:'),
      image(RED_PIXEL_PNG, 'image/png'),
      embeddedResource('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), 'application/json'),
    ];
  }

  @Tool({ description: 'Logs three messages while it runs' })
  async test_tool_with_logging(_: EmptyInput, ctx: McpContext) {
    await ctx.log.info('Tool execution started');
    await pause(50);
    await ctx.log.info('Tool processing data');
    await pause(50);
    await ctx.log.info('Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @Tool({ description: 'Always fails' })
  test_error_handling(_: EmptyInput): string {
    throw new ToolError('This tool intentionally returns an error for testing');
  }

  @Tool({ description: 'Reports progress 0, 50 and 100 of 100' })
  async test_tool_with_progress(_: EmptyInput, ctx: McpContext) {
    await ctx.progress(0, 100);
    await pause(50);
    await ctx.progress(50, 100);
    await pause(50);
    await ctx.progress(100, 100);
    return 'Tool with progress executed successfully';
  }

  @Tool({ description: 'Asks the client to sample an LLM' })
  async test_sampling(input: SamplingInput, ctx: McpContext) {
    const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: input.prompt } }], maxTokens: 100 });
    const content = result.content as { type?: string; text?: string };
    return `LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  @Tool({ description: 'Asks the user for a username and an email' })
  async test_elicitation(input: ElicitationInput, ctx: McpContext) {
    const result = await ctx.elicit({
      message: input.message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  @Tool({ description: 'Elicits a form with defaults for every primitive type (SEP-1034)' })
  async test_elicitation_sep1034_defaults(_: EmptyInput, ctx: McpContext) {
    const result = await ctx.elicitForm('Please review your profile', DefaultsForm);
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  @Tool({ description: 'Elicits a form with every enum variant (SEP-1330)' })
  async test_elicitation_sep1330_enums(_: EmptyInput, ctx: McpContext) {
    const result = await ctx.elicitForm('Please choose', EnumsForm);
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  @Tool({ description: 'Closes its SSE stream mid-call; the client resumes with Last-Event-ID (SEP-1699)' })
  async test_reconnection(_: EmptyInput, ctx: McpContext) {
    await pause(50);
    ctx.closeStream();
    await pause(100);
    return 'Reconnection test completed';
  }
}
