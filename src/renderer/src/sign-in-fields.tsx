/** A person's sign-in fields (the register's and the back office's screens ask the same). */
export function UserSignInFields({ email, password, onEmail, onPassword }: { email: string; password: string; onEmail(v: string): void; onPassword(v: string): void }) {
  return (
    <>
      <label>
        E-mail
        <input autoFocus type="email" autoComplete="username" value={email} onChange={(e) => onEmail(e.target.value)} required />
      </label>
      <label>
        Password
        <input type="password" autoComplete="current-password" value={password} onChange={(e) => onPassword(e.target.value)} required />
      </label>
    </>
  );
}
