/** Thrown when a request body passes its limit (before it is buffered further). */
export class BodyTooLargeError extends Error {}
