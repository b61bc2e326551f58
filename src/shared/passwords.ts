/**
 * A back-office password's least length: the engine refuses a shorter one, and the welcome page
 * says so beside the field before sending (the browser's own tooltip alone was easy to miss).
 */
export const MIN_PASSWORD = 10;
