export { SecretBox, SecretDecryptionError, SecretKeyConfigError, generateEncryptionKey, secretBoxFromEnv } from './secret-box';
