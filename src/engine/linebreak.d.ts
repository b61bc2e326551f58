// The linebreak package (UAX #14, the line breaking pdfkit itself uses) ships no types.
declare module 'linebreak' {
  export interface Break {
    /** The index in the string where a line may (or, when required, must) start. */
    position: number;
    required: boolean;
  }
  export default class LineBreaker {
    constructor(text: string);
    nextBreak(): Break | null;
  }
}
