import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Complete, EmptyInput, embeddedResource, Field, image, Prompt, Resource, userMessage } from '../../src';
import { RED_PIXEL_PNG } from './media';

export class TwoArgs {
  @Field('First test argument') @IsString() arg1!: string;
  @Field('Second test argument') @IsString() arg2!: string;
}

export class ResourceUriArg {
  @Field('URI of the resource to embed') @IsString() resourceUri!: string;
}

@injectable()
export class ConformanceResources {
  @Resource({ uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', name: 'static-binary', description: 'A static PNG', mimeType: 'image/png' })
  staticBinary() {
    return Buffer.from(RED_PIXEL_PNG, 'base64');
  }

  @Resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource clients can subscribe to',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content';
  }

  @Resource({ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data by id', mimeType: 'application/json' })
  templateData({ id }: { id: string }) {
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }

  @Prompt({ description: 'A prompt without arguments' })
  test_simple_prompt(_: EmptyInput) {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ description: 'A prompt with two arguments' })
  test_prompt_with_arguments(args: TwoArgs) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @Prompt({ description: 'A prompt that embeds a resource' })
  test_prompt_with_embedded_resource(args: ResourceUriArg) {
    return [
      userMessage(embeddedResource(args.resourceUri, 'Embedded resource content for testing.', 'text/plain')),
      userMessage('Please process the embedded resource above.'),
    ];
  }

  @Prompt({ description: 'A prompt with an image' })
  test_prompt_with_image(_: EmptyInput) {
    return [userMessage(image(RED_PIXEL_PNG, 'image/png')), userMessage('Please analyze the image above.')];
  }

  @Complete({ prompt: 'test_prompt_with_arguments', argument: 'arg1' })
  completeArg1(value: string) {
    return ['paris', 'park', 'party', 'test', 'testing'].filter((v) => v.startsWith(value));
  }

  @Complete({ resource: 'test://template/{id}/data', argument: 'id' })
  completeId(value: string) {
    return ['123', '456', '789'].filter((v) => v.startsWith(value));
  }
}
