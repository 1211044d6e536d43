import { builder } from './builder.js';
import './scalars.js';
import './money.js';
import './enums.js';
import './account.js';
import './region.js';
import './brand.js';
import './gift.js';
import './campaign.js';
import './funds.js';
import './gift-status-change.js';
import './errors.js';
import './create-campaign.js';
import './embedded-reward.js';
import './gift-payload.js';
import './cancel-campaign.js';
import './add-funds.js';

export const schema = builder.toSchema();
