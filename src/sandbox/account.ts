// The one sandbox account. Its owner's address is where every reward email goes (the sandbox rule).
import type { Handler } from './context.js';
import { info } from './info.js';

export const ACCOUNT = {
  username: 'owner@sandbox.invalid',
  displayname: 'Sandbox Owner',
  ownerEmail: 'owner@sandbox.invalid',
  companyName: 'Sandbox Company',
} as const;

/** Claim pages live under {reward_url}; the sandbox serves none of them (redeem through the control API). */
export const REWARD_URL = 'https://rewards.sandbox.invalid';

export const ping: Handler = () => ({
  body: {
    username: ACCOUNT.username,
    displayname: ACCOUNT.displayname,
    info: info('INFO_CREDENTIALS', 'Credentials', 'Your token is valid.'),
    status: 200,
  },
});
