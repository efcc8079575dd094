declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: {
    findTypeMetadata(target: new () => unknown, propertyName: string): { typeFunction?: () => unknown } | undefined;
    findTransformMetadatas(target: new () => unknown, propertyName: string, transformationType: number): unknown[];
    getExposedMetadatas(target: new () => unknown): unknown[];
    getExcludedMetadatas(target: new () => unknown): unknown[];
  };
}
