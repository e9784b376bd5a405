-- CreateTable
CREATE TABLE "stored_responses" (
    "id" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "key_hash" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "vendor" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stored_responses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stored_responses_organization_id_last_used_at_idx" ON "stored_responses"("organization_id", "last_used_at");

-- CreateIndex
CREATE INDEX "stored_responses_key_hash_idx" ON "stored_responses"("key_hash");

-- CreateIndex
CREATE INDEX "stored_responses_expires_at_idx" ON "stored_responses"("expires_at");

-- AddForeignKey
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_key_hash_fkey" FOREIGN KEY ("key_hash") REFERENCES "api_keys"("hash") ON DELETE CASCADE ON UPDATE CASCADE;
