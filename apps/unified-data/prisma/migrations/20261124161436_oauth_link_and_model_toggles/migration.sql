-- AlterTable
ALTER TABLE "link_tokens" ADD COLUMN     "oauth_pending_sealed" TEXT,
ADD COLUMN     "oauth_state" TEXT;

-- AlterTable
ALTER TABLE "linked_accounts" ADD COLUMN     "disabled_models" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE UNIQUE INDEX "link_tokens_oauth_state_key" ON "link_tokens"("oauth_state");

-- Linked accounts are listed with keyset cursors on (created_at, id) that carry milliseconds (JavaScript
-- dates); rows now store created_at at millisecond precision, so a cursor's boundary compares exactly.
UPDATE "linked_accounts" SET "created_at" = date_trunc('milliseconds', "created_at");
