/** The input class of a tool that takes no arguments. */
export class EmptyInput {}
