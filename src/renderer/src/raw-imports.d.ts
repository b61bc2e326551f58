/** Vite hands a file imported with `?raw` over as its text (the CSV samples of resources/samples). */
declare module '*.csv?raw' {
  const text: string;
  export default text;
}
