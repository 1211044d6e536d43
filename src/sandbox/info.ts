export interface Info {
  code: string;
  name: string;
  message: string;
}

export const info = (code: string, name: string, message: string): Info => ({ code, name, message });
