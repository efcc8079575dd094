/** Authorization options that cannot work together or cannot be resolved (thrown at bootstrap or listen). */
export class AuthConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthConfigurationError';
  }
}
