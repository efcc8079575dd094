declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: {
    findTypeMetadata(target: new () => unknown, propertyName: string): { typeFunction?: () => unknown } | undefined;
  };
}
